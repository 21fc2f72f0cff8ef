// SPDX-License-Identifier: MIT
// (placeholder so the library is never empty; removed when DAME lands)
