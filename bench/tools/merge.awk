# SPDX-License-Identifier: MIT
# Table merger of the benchmark harness (POSIX awk; mawk and gawk).
#   awk -F '\t' -v summary=<file> -f merge.awk <raw tsv>
# Input: the runner's raw lines "<config>\t<round>\t<program line>", where a
# program line is TABLE / BENCH / RATIO / GOAL / PROBE / INFO (docs/benchmarks.md) and
# a round ending in "*" marks a run that other processes disturbed.
# Output: one aligned text table per benchmark table on stdout (rows; each
# configuration's value = median over rounds, or the probe's fastest round;
# the declared ratios; ✓/✗ where
# a goal applies), and, if `summary` is set, the merged numbers as TSV:
#   VALUE  <table> <row> <config> <metric> <median> <runs> <min> <max> [disturbed]
#   RATIO  <table> <row> <ratio> <value> <mark: ok|fail|->
#   GOAL   <table> <ratio> <op> <value> <rows> <passed> <checked> <near>
# where <near> counts the missed rows that the goal's ratio would meet with
# the rounds most in their favour (the miss is within the run's spread).

BEGIN {
    # Known configurations first, in this order; others (references) after.
    ncanon = split("ch4lite ch4lite-net ch4lite-am mpich mpich-tcp ompi ompi-ofi", canon, " ")
    for (i = 1; i <= ncanon; i++) canon_rank[canon[i]] = i
    CHECK = "\342\234\223"; CROSS = "\342\234\227"   # ✓ ✗ in UTF-8
    glyph_extra = length(CHECK) - 1                   # bytes beyond one column (mawk)
}

function add_table(t) {
    if (!(t in has_table)) { has_table[t] = 1; tables[++ntables] = t }
}

$3 == "TABLE" && NF >= 5 {
    add_table($4)
    if (!($4 in row_label)) { row_label[$4] = $5; desc[$4] = (NF >= 6 ? $6 : "") }
    next
}

$3 == "BENCH" && NF >= 7 {
    cfg = $1; t = $4; r = $5; m = $6; v = $7
    if (v !~ /^[-+0-9.eE]+$/ && v !~ /^(inf|nan)$/) next
    add_table(t)
    if (!((t, r) in has_row)) { has_row[t, r] = 1; rows[t, ++nrows[t]] = r }
    if (!((t, m) in has_metric)) { has_metric[t, m] = 1; metrics[t, ++nmetrics[t]] = m }
    if (!((t, cfg) in has_cfg)) { has_cfg[t, cfg] = 1; cfgs[t, ++ncfgs[t]] = cfg }
    k = t SUBSEP r SUBSEP cfg SUBSEP m
    # A round written "2*" comes from a run that other processes disturbed:
    # its values count only when no undisturbed run measured the same thing.
    if ($2 ~ /\*$/) { ndirty[k]++; dval[k, ndirty[k]] = v + 0; dround[k, ndirty[k]] = $2 }
    else { nval[k]++; val[k, nval[k]] = v + 0; vround[k, nval[k]] = $2 }
    byround[k, $2] = v + 0
    next
}

$3 == "RATIO" && NF >= 7 {
    t = $4
    add_table(t)
    if (!((t, $5) in has_ratio)) {
        has_ratio[t, $5] = 1; ratios[t, ++nratios[t]] = $5
        rnum[t, $5] = $6; rden[t, $5] = $7
    }
    next
}

$3 == "GOAL" && NF >= 7 {
    t = $4
    add_table(t)
    spec = (NF >= 8 && $8 != "") ? $8 : "*"
    g = t SUBSEP $5 SUBSEP $6 SUBSEP $7 SUBSEP spec
    if (!(g in has_goal)) {
        has_goal[g] = 1; n = ++ngoals[t]
        gratio[t, n] = $5; gop[t, n] = $6; gval[t, n] = $7 + 0; grows[t, n] = spec
    }
    next
}

# PROBE <table> <metric> <max|min>: the table's rows take their values from
# the round where that metric was fastest (pick_probe_rounds).
$3 == "PROBE" && NF >= 6 && ($6 == "max" || $6 == "min") {
    probe[$4, $5] = $6
    next
}

function median(k,    n, i, j, x, a) {
    n = nval[k]
    for (i = 1; i <= n; i++) a[i] = val[k, i]
    for (i = 2; i <= n; i++) {            # insertion sort; n is tiny
        x = a[i]
        for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
        a[j + 1] = x
    }
    mn = a[1]; mx = a[n]
    if (n % 2) return a[(n + 1) / 2]
    return (a[n / 2] + a[n / 2 + 1]) / 2
}

# Value of "<config>.<metric>", a constant, "min(a,b,...)" or "max(a,b,...)" at a row;
# "" when missing. min/max use the operands that exist (a missing peer is
# skipped, not fatal). Each configuration's median, or with side "lo" / "hi"
# its lowest / highest round.
function term(t, r, e, side,    c, m, p, k) {
    if (e ~ /^[0-9]+(\.[0-9]+)?$/) return e + 0   # a constant, e.g. "1"
    p = index(e, ".")
    if (p == 0) return ""
    c = substr(e, 1, p - 1); m = substr(e, p + 1)
    k = t SUBSEP r SUBSEP c SUBSEP m
    if (!(k in med)) return ""
    return side == "hi" ? vmax[k] : side == "lo" ? vmin[k] : med[k]
}
function evalx(t, r, e, side,    f, inner, n, parts, i, v, best) {
    if (e ~ /^(min|max)\(.*\)$/) {
        f = substr(e, 1, 3); inner = substr(e, 5, length(e) - 5)
        n = split(inner, parts, ",")
        best = ""
        for (i = 1; i <= n; i++) {
            gsub(/^ +| +$/, "", parts[i])
            v = term(t, r, parts[i], side)
            if (v == "") continue
            if (best == "" || (f == "min" && v < best) || (f == "max" && v > best)) best = v
        }
        return best
    }
    return term(t, r, e, side)
}

# Would a row that misses a goal meet it with the rounds most in its
# favour (numerator's best round over denominator's worst, or the reverse
# for "<=")? Then the miss lies within the round-to-round spread of the run.
function within_spread(t, r, rname, op, goal,    num, den, q) {
    if (op == ">=") { num = evalx(t, r, rnum[t, rname], "hi"); den = evalx(t, r, rden[t, rname], "lo") }
    else { num = evalx(t, r, rnum[t, rname], "lo"); den = evalx(t, r, rden[t, rname], "hi") }
    if (num == "" || den == "" || den == 0) return 0
    q = num / den
    return op == ">=" ? q >= goal : q <= goal
}

function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ }

# Does row r of table t fall under a goal's row spec ("*", "a,b", "lo..hi",
# "geomean")?
function in_spec(spec, r,    n, parts, i, lo, hi, p) {
    if (spec == "*") return r != "geomean"
    n = split(spec, parts, ",")
    for (i = 1; i <= n; i++) {
        if (parts[i] == r) return 1
        p = index(parts[i], "..")
        if (p > 0 && isnum(r) && r != "geomean") {
            lo = substr(parts[i], 1, p - 1); hi = substr(parts[i], p + 2)
            if ((lo == "" || r + 0 >= lo + 0) && (hi == "" || r + 0 <= hi + 0)) return 1
        }
    }
    return 0
}

function fmt(v,    a) {
    if (v == "") return "-"
    a = v < 0 ? -v : v
    if (a >= 1000) return sprintf("%.0f", v)
    if (a >= 100) return sprintf("%.1f", v)
    if (a >= 10) return sprintf("%.2f", v)
    if (a >= 1) return sprintf("%.3f", v)
    if (a >= 0.01) return sprintf("%.4f", v)
    if (a == 0) return "0"
    return sprintf("%.3g", v)
}

# Byte-count rows read better as 4K / 1M.
function rowname(t, r) {
    if (row_label[t] != "bytes" || !isnum(r) || r < 1024) return r
    if (r % 1048576 == 0) return (r / 1048576) "M"
    if (r % 1024 == 0) return (r / 1024) "K"
    return r
}

# Display width: ✓ and ✗ take one column but three bytes under mawk.
function dlen(s,    n, c) {
    n = length(s)
    c = gsub(CHECK, CHECK, s) + gsub(CROSS, CROSS, s)
    return n - c * glyph_extra
}
function pad(s, w, left) {
    while (dlen(s) < w) s = left ? s " " : " " s
    return s
}

function cfg_before(a, b,    ra, rb) {
    ra = (a in canon_rank) ? canon_rank[a] : 1000
    rb = (b in canon_rank) ? canon_rank[b] : 1000
    if (ra != rb) return ra < rb
    return a < b
}

function print_table(t,    i, j, n, r, c, m, k, cols, ncols, cell, w, line, nr, rlist, e, gw, gstart,
                        x, y, num, den, q, gsum, gcnt, spec, op, gv, ok, mark, pass, chk,
                        rhead, sep) {
    # rows: numeric tables sorted by value, others in order of appearance
    nr = nrows[t]
    for (i = 1; i <= nr; i++) rlist[i] = rows[t, i]
    allnum = 1
    for (i = 1; i <= nr; i++) if (!isnum(rlist[i])) allnum = 0
    if (allnum)
        for (i = 2; i <= nr; i++) {
            x = rlist[i]
            for (j = i - 1; j >= 1 && rlist[j] + 0 > x + 0; j--) rlist[j + 1] = rlist[j]
            rlist[j + 1] = x
        }
    # configuration order
    n = ncfgs[t]
    for (i = 1; i <= n; i++) clist[i] = cfgs[t, i]
    for (i = 2; i <= n; i++) {
        x = clist[i]
        for (j = i - 1; j >= 1 && cfg_before(x, clist[j]); j--) clist[j + 1] = clist[j]
        clist[j + 1] = x
    }
    # value columns: one per (metric, configuration that has it)
    ncols = 0
    for (j = 1; j <= nmetrics[t]; j++) {
        m = metrics[t, j]
        for (i = 1; i <= n; i++) {
            c = clist[i]
            any = 0
            for (k = 1; k <= nr; k++)
                if ((t SUBSEP rlist[k] SUBSEP c SUBSEP m) in med) { any = 1; break }
            if (!any) continue
            ncols++
            ckind[ncols] = "v"; ccfg[ncols] = c; cmet[ncols] = m
            chead[ncols] = c; cgroup[ncols] = m
        }
    }
    nvalcols = ncols
    for (j = 1; j <= nratios[t]; j++) {
        ncols++
        ckind[ncols] = "r"; cname[ncols] = ratios[t, j]; chead[ncols] = ratios[t, j]
        cgroup[ncols] = "ratios"
    }
    # cells
    rhead = row_label[t] != "" ? row_label[t] : "row"
    for (i = 1; i <= nr; i++) {
        r = rlist[i]
        rn[i] = rowname(t, r)
        for (c = 1; c <= ncols; c++) {
            if (ckind[c] == "v") {
                k = t SUBSEP r SUBSEP ccfg[c] SUBSEP cmet[c]
                cell[i, c] = (k in med) ? fmt(med[k]) ((k in dirty) ? "~" : "") : "-"
                if (k in dirty) any_dirty = 1
                continue
            }
            num = evalx(t, r, rnum[t, cname[c]]); den = evalx(t, r, rden[t, cname[c]])
            q = (num != "" && den != "" && den != 0) ? num / den : ""
            rv[i, c] = q
            cell[i, c] = q == "" ? "-" : sprintf("%.2f", q)
        }
    }
    # geometric mean of each ratio over the rows where it exists
    has_geo = 0
    for (c = nvalcols + 1; c <= ncols; c++) {
        gsum = 0; gcnt = 0
        for (i = 1; i <= nr; i++) if (rv[i, c] != "" && rv[i, c] > 0) { gsum += log(rv[i, c]); gcnt++ }
        rv[nr + 1, c] = gcnt ? exp(gsum / gcnt) : ""
        cell[nr + 1, c] = gcnt ? sprintf("%.2f", rv[nr + 1, c]) : "-"
        if (gcnt) has_geo = 1
    }
    for (c = 1; c <= nvalcols; c++) cell[nr + 1, c] = ""
    rn[nr + 1] = "geomean"; rlist[nr + 1] = "geomean"
    totrows = has_geo ? nr + 1 : nr
    # goals: mark cells, count
    for (j = 1; j <= ngoals[t]; j++) {
        pass[j] = 0; chk[j] = 0; near[j] = 0
        for (c = nvalcols + 1; c <= ncols; c++) if (cname[c] == gratio[t, j]) break
        if (c > ncols) continue
        for (i = 1; i <= totrows; i++) {
            if (!in_spec(grows[t, j], rlist[i]) || rv[i, c] == "") continue
            ok = gop[t, j] == ">=" ? rv[i, c] >= gval[t, j] : rv[i, c] <= gval[t, j]
            chk[j]++; if (ok) pass[j]++
            else if (rlist[i] != "geomean" && within_spread(t, rlist[i], cname[c], gop[t, j], gval[t, j])) near[j]++
            mark[i, c] = (i, c) in mark && mark[i, c] == CROSS ? CROSS : (ok ? CHECK : CROSS)
        }
    }
    for (i = 1; i <= totrows; i++)
        for (c = nvalcols + 1; c <= ncols; c++)
            if ((i, c) in mark) cell[i, c] = cell[i, c] mark[i, c]
            else if (cell[i, c] != "-" && cell[i, c] != "") cell[i, c] = cell[i, c] " "
    # widths
    w[0] = dlen(rhead)
    for (i = 1; i <= totrows; i++) if (dlen(rn[i]) > w[0]) w[0] = dlen(rn[i])
    for (c = 1; c <= ncols; c++) {
        w[c] = dlen(chead[c])
        for (i = 1; i <= totrows; i++) if (dlen(cell[i, c]) > w[c]) w[c] = dlen(cell[i, c])
    }
    # A first header line names each group of columns (a metric, or
    # "ratios") over its columns; widen a group's last column if needed.
    for (c = 1; c <= ncols; c = e + 1) {
        for (e = c; e < ncols && cgroup[e + 1] == cgroup[c] && e + 1 != nvalcols + 1; e++) ;
        gw = 0
        for (x = c; x <= e; x++) gw += w[x] + (x > c ? 2 : 0)
        if (dlen(cgroup[c]) > gw) w[e] += dlen(cgroup[c]) - gw
        gstart[c] = e
    }
    print "== " t (desc[t] != "" ? ": " desc[t] : "")
    line = pad("", w[0], 1)
    for (c = 1; c <= ncols; c = e + 1) {
        e = gstart[c]
        gw = 0
        for (x = c; x <= e; x++) gw += w[x] + (x > c ? 2 : 0)
        sep = (c == nvalcols + 1) ? "  | " : "  "
        line = line sep pad(cgroup[c], gw, 1)
    }
    sub(/ +$/, "", line)
    print line
    line = pad(rhead, w[0], 1)
    for (c = 1; c <= ncols; c++) {
        sep = (c == nvalcols + 1) ? "  | " : "  "
        line = line sep pad(chead[c], w[c], 0)
    }
    print line
    for (i = 1; i <= totrows; i++) {
        line = pad(rn[i], w[0], 1)
        for (c = 1; c <= ncols; c++) {
            sep = (c == nvalcols + 1) ? "  | " : "  "
            line = line sep pad(cell[i, c], w[c], 0)
        }
        print line
        if (summary != "" && rlist[i] != "geomean")
            for (c = 1; c <= nvalcols; c++) {
                k = t SUBSEP rlist[i] SUBSEP ccfg[c] SUBSEP cmet[c]
                if (k in med)
                    print "VALUE\t" t "\t" rlist[i] "\t" ccfg[c] "\t" cmet[c] "\t" med[k] "\t" \
                        nval[k] "\t" vmin[k] "\t" vmax[k] ((k in dirty) ? "\tdisturbed" : "") > summary
            }
        if (summary != "")
            for (c = nvalcols + 1; c <= ncols; c++)
                if (rv[i, c] != "")
                    print "RATIO\t" t "\t" rlist[i] "\t" cname[c] "\t" rv[i, c] "\t" \
                        (((i, c) in mark) ? (mark[i, c] == CHECK ? "ok" : "fail") : "-") > summary
    }
    for (j = 1; j <= nratios[t]; j++)
        print "   " ratios[t, j] " = " rnum[t, ratios[t, j]] " / " rden[t, ratios[t, j]]
    for (j = 1; j <= ngoals[t]; j++) {
        spec = grows[t, j] == "*" ? "all rows" : "rows " grows[t, j]
        if (chk[j] == 0)
            status = "no data yet"
        else
            status = pass[j] "/" chk[j] " rows " (pass[j] == chk[j] ? CHECK : CROSS) \
                (near[j] ? " (" (near[j] == chk[j] - pass[j] ? "every miss" : near[j] " of the " chk[j] - pass[j] " misses") \
                 " within the rounds' spread)" : "")
        print "   goal " gratio[t, j] " " gop[t, j] " " gval[t, j] " (" spec "): " status
        goals_total++; if (chk[j] && pass[j] == chk[j]) goals_met++
        if (chk[j] && pass[j] < chk[j]) goals_failed++
        if (summary != "")
            print "GOAL\t" t "\t" gratio[t, j] "\t" gop[t, j] "\t" gval[t, j] "\t" grows[t, j] "\t" \
                pass[j] "\t" chk[j] "\t" near[j] > summary
    }
    print ""
    for (k in mark) delete mark[k]
    for (k in rv) delete rv[k]
    for (k in cell) delete cell[k]
}

# A row with a probe takes all its values from the round whose probe was
# fastest, not the median. Probes: "cl_us" (the cache-line handoff the same
# two processes measured during the run, bench/common/cacheline.h; smallest
# is fastest) in any table, and the metric a PROBE line names for its table.
# On this virtual machine the host changes the vCPUs' placement for seconds
# at a time: a line moved between cores costs up to 4x more, and a core
# shared with another guest's thread runs a scalar loop at half speed. Values
# are only comparable across configurations when they come from the same
# placement, and the probe (the same code in every configuration's process)
# tells which round had the fast one.
function pick_probe_rounds(    k, p, i, best, bi, rr, t, r, c, j, km, dirn, v) {
    for (k in nval) {
        split(k, p, SUBSEP)
        if (p[4] == "cl_us") dirn = "min"
        else if ((p[1], p[4]) in probe) dirn = probe[p[1], p[4]]
        else continue
        best = ""; bi = 0
        for (i = 1; i <= nval[k]; i++) {
            v = val[k, i]
            if (best == "" || (dirn == "min" ? v < best : v > best)) { best = v; bi = i }
        }
        if (!bi) continue
        rr = dirty_k(k) ? dround[k, bi] : vround[k, bi]
        t = p[1]; r = p[2]; c = p[3]
        for (j = 1; j <= nmetrics[t]; j++) {
            km = t SUBSEP r SUBSEP c SUBSEP metrics[t, j]
            if ((km, rr) in byround) med[km] = byround[km, rr]
        }
    }
}
function dirty_k(k) { return k in dirty }

END {
    for (k in ndirty)
        if (!(k in nval)) {
            for (i = 1; i <= ndirty[k]; i++) val[k, i] = dval[k, i]
            nval[k] = ndirty[k]; dirty[k] = 1
        }
    for (k in nval) { med[k] = median(k); vmin[k] = mn; vmax[k] = mx }
    pick_probe_rounds()
    for (i = 1; i <= ntables; i++) print_table(tables[i])
    if (goals_total)
        printf "goals: %d met, %d missed, %d without data (of %d)\n", goals_met + 0,
            goals_failed + 0, goals_total - goals_met - goals_failed, goals_total
    if (any_dirty)
        print "~: measured only in runs that other processes disturbed (see the notes)"
    if (failfile != "" && goals_failed) print goals_failed > failfile
}
