/* SPDX-License-Identifier: MIT */
/*
 * ch4lite public C API: the profiling interface (PMPI_ names) of
 * mpi_proto_env.h.
 *
 * Generated from mpi_proto_env.h by scripts/gen-pmpi.sh; do not edit. Every
 * MPI_ function has a PMPI_ twin at the same address; the MPI_ name is weak,
 * so a tool may define it and call the PMPI_ one (MPI-4.1 section 15.2).
 * Included by mpi.h; include <mpi.h> instead.
 */
#if !defined(MPI_H_ABI)
#error "mpi_pmpi_env.h is included by mpi.h; include <mpi.h> instead"
#elif !defined(MPI_PMPI_ENV_H_ABI)
#define MPI_PMPI_ENV_H_ABI

#ifdef __cplusplus
extern "C" {
#endif

int PMPI_Init(int *argc, char ***argv);
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int PMPI_Initialized(int *flag);
int PMPI_Finalize(void);
int PMPI_Finalized(int *flag);
int PMPI_Query_thread(int *provided);
int PMPI_Is_thread_main(int *flag);
int PMPI_Abort(MPI_Comm comm, int errorcode);
int PMPI_Get_processor_name(char *name, int *resultlen);
int PMPI_Get_version(int *version, int *subversion);
int PMPI_Get_library_version(char *version, int *resultlen);
double PMPI_Wtime(void);
double PMPI_Wtick(void);
int PMPI_Abi_get_version(int *abi_major, int *abi_minor);
int PMPI_Pcontrol(const int level, ...);
int PMPI_Get_hw_resource_info(MPI_Info *hw_info);
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int PMPI_Free_mem(void *base);
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                               MPI_Errhandler *errhandler);
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int PMPI_Errhandler_free(MPI_Errhandler *errhandler);
int PMPI_Error_string(int errorcode, char *string, int *resultlen);
int PMPI_Error_class(int errorcode, int *errorclass);
int PMPI_Add_error_class(int *errorclass);
int PMPI_Add_error_code(int errorclass, int *errorcode);
int PMPI_Add_error_string(int errorcode, const char *string);
int PMPI_Remove_error_class(int errorclass);
int PMPI_Remove_error_code(int errorcode);
int PMPI_Remove_error_string(int errorcode);
int PMPI_Comm_rank(MPI_Comm comm, int *rank);
int PMPI_Comm_size(MPI_Comm comm, int *size);
int PMPI_Info_create(MPI_Info *info);
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int PMPI_Info_free(MPI_Info *info);
int PMPI_Info_set(MPI_Info info, const char *key, const char *value);
int PMPI_Info_delete(MPI_Info info, const char *key);
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int PMPI_Comm_toint(MPI_Comm comm);
MPI_Comm PMPI_Comm_fromint(int comm);
int PMPI_Errhandler_toint(MPI_Errhandler errhandler);
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler);
int PMPI_Request_toint(MPI_Request request);
MPI_Request PMPI_Request_fromint(int request);
int PMPI_Message_toint(MPI_Message message);
MPI_Message PMPI_Message_fromint(int message);
int PMPI_Type_toint(MPI_Datatype datatype);
MPI_Datatype PMPI_Type_fromint(int datatype);
int PMPI_Info_toint(MPI_Info info);
MPI_Info PMPI_Info_fromint(int info);

#ifdef __cplusplus
}
#endif

#endif /* MPI_PMPI_ENV_H_ABI */
