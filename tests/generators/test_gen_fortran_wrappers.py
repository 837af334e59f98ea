"""Unit tests of mpi/wrappers/gen_fortran_wrappers.py on a small, hand-written mpi.h excerpt
and symbol list (the installed Open MPI's bindings are traced for real in
tests/mpi/test_fortran.py)."""
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "mpi" / "wrappers"))
import gen_fortran_wrappers as gen  # noqa: E402

HEADER = '''
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses);
int PMPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Odd(struct unknown *thing);
int PMPI_Odd(struct unknown *thing);
int MPI_Barrier(MPI_Comm comm);
int PMPI_Barrier(MPI_Comm comm);
'''
# Send in both bindings and every mangling; Waitany, Waitall, Comm_set_name and Alltoallw in
# mpif.h only; Barrier in no binding.
SYMBOLS = "\n".join(f"0000000000001000 W {name}" for name in (
    "mpi_send", "mpi_send_", "mpi_send__", "MPI_SEND", "pmpi_send_", "mpi_send_f08_",
    "pmpi_send_f08_", "mpi_waitany_", "pmpi_waitany_", "mpi_waitall_", "pmpi_waitall_",
    "mpi_comm_set_name_", "pmpi_comm_set_name_", "mpi_alltoallw_", "pmpi_alltoallw_", "mpi_odd_",
    "pmpi_odd_"))


class GenFortranWrappersTest(unittest.TestCase):
    def generated(self):
        with tempfile.TemporaryDirectory() as tmp:
            header = pathlib.Path(tmp, "mpi.h")
            header.write_text(HEADER)
            excluded = pathlib.Path(tmp, "excluded.txt")
            excluded.write_text("MPI_Wtime timer\n")
            symbols = pathlib.Path(tmp, "mpifh.symbols")
            symbols.write_text(SYMBOLS)
            out = pathlib.Path(tmp, "out")
            gen.main(["--preprocessed", str(header), "--excluded", str(excluded),
                      "--symbols", str(symbols), "--out-dir", str(out)])
            return (out / "fortran_wrappers.cpp").read_text()

    def test_every_mangling_the_library_exports_forwards_to_its_profiling_entry(self):
        code = self.generated()
        for symbol in ("mpi_send", "mpi_send_", "mpi_send__", "MPI_SEND"):
            self.assertIn(f"void {symbol}(void* buf, MPI_Fint* count, MPI_Fint* datatype, "
                          "MPI_Fint* dest, MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* ierr) {\n"
                          '  static fortran::NextFunction next("pmpi_send_");', code)
        self.assertIn('void mpi_send_f08_(void* buf, MPI_Fint* count, MPI_Fint* datatype, '
                      'MPI_Fint* dest, MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* ierr) {\n'
                      '  static fortran::NextFunction next("pmpi_send_f08_");', code)
        # Converted for the C decoder: handles through f2c, the buffer's sentinels.
        self.assertIn("MPI_Datatype c_datatype = PMPI_Type_f2c(*datatype);", code)
        self.assertIn("MPI_Comm c_comm = PMPI_Comm_f2c(*comm);", code)
        self.assertIn("const void* c_buf = const_cast<const void*>(fortran::buffer(buf));", code)
        self.assertNotIn("mpi_barrier", code)  # in no binding: not wrapped

    def test_arrays_statuses_and_indices_are_converted(self):
        code = self.generated()
        waitall = code[code.index("void fortran_MPI_Waitall("):]
        waitall = waitall[:waitall.index("\n}\n")]
        self.assertIn("MPI_Request* c_array_of_requests = fortran::handles(array_of_requests, "
                      "c_count, PMPI_Request_f2c, 0);", waitall)
        self.assertIn("fortran::statuses_ignored(array_of_statuses)", waitall)
        self.assertIn("fortran::fortran_statuses(c_count)", waitall)
        self.assertIn("fortran::to_statuses(f_array_of_statuses, c_array_of_statuses, c_count)",
                      waitall)
        waitany = code[code.index("void fortran_MPI_Waitany("):]
        waitany = waitany[:waitany.index("\n}\n")]
        self.assertIn("c_index_value = *index == MPI_UNDEFINED ? MPI_UNDEFINED : *index - 1;",
                      waitany)
        self.assertIn("fortran::status_ignored(status)", waitany)

    def test_text_gets_its_hidden_length_and_what_cannot_be_converted_is_left_out(self):
        code = self.generated()
        self.assertIn("void mpi_comm_set_name_(MPI_Fint* comm, char* comm_name, MPI_Fint* ierr, "
                      "std::size_t comm_name_length)", code)
        self.assertIn("binding(comm, comm_name, &rocprof_ierr, comm_name_length);", code)
        self.assertIn("//   MPI_Odd: thing (struct unknown*) has no generic Fortran conversion",
                      code)
        self.assertNotIn("void mpi_odd_(", code)

    def test_types_per_process_are_converted_once_the_communicator_is(self):
        code = self.generated()
        body = code[code.index("void fortran_MPI_Alltoallw("):]
        body = body[:body.index("\n}\n")]
        comm = body.index("MPI_Comm c_comm = PMPI_Comm_f2c(*comm);")
        send = body.index("MPI_Datatype* c_sendtypes = fortran::handles(sendtypes, "
                          "exchange_size(c_comm), PMPI_Type_f2c, 0);")
        receive = body.index("MPI_Datatype* c_recvtypes = fortran::handles(recvtypes, "
                             "exchange_size(c_comm), PMPI_Type_f2c, 1);")
        self.assertLess(comm, send)
        self.assertLess(send, receive)

if __name__ == "__main__":
    unittest.main()
