// MPI programs for the MPI layer's tests, one per scenario (argv[1]); run with 4 ranks under
// the PMPI wrappers. The Python test (test_mpi.py) asserts from the rank files exactly what
// each scenario does, so every value below is deliberate.
#include <mpi.h>
#include <roctracer/roctx.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int rank = -1;
int size = 0;

// What libmpi_cxx's static constructors and some codes do: ask MPI before main runs.
int initialized_before_main = -1;
struct AskedBeforeMain {
  AskedBeforeMain() { MPI_Initialized(&initialized_before_main); }
} asked_before_main;

void point_to_point() {
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  // Blocking ring: 100 doubles to the next rank, received with wildcards and no status.
  std::vector<double> out(100, rank);
  std::vector<double> in(100);
  if (rank % 2 == 0) {
    MPI_Send(out.data(), 100, MPI_DOUBLE, next, 10 + rank, MPI_COMM_WORLD);
    MPI_Recv(in.data(), 100, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in.data(), 100, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Send(out.data(), 100, MPI_DOUBLE, next, 10 + rank, MPI_COMM_WORLD);
  }
  // Wildcards could match the next phase's messages: finish this one everywhere first.
  MPI_Barrier(MPI_COMM_WORLD);
  // Non-blocking exchange with the rank two away: 50 ints each way, completed by Waitall.
  const int across = (rank + 2) % size;
  std::vector<int> send_ints(50, rank);
  std::vector<int> recv_ints(50);
  MPI_Request requests[2];
  MPI_Irecv(recv_ints.data(), 50, MPI_INT, across, 20, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(send_ints.data(), 50, MPI_INT, across, 20, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  // Persistent requests, started three times: 8 floats to next, from previous.
  std::vector<float> send_floats(8, 1.0F);
  std::vector<float> recv_floats(8);
  MPI_Request persistent[2];
  MPI_Recv_init(recv_floats.data(), 8, MPI_FLOAT, previous, 30, MPI_COMM_WORLD, &persistent[0]);
  MPI_Send_init(send_floats.data(), 8, MPI_FLOAT, next, 30, MPI_COMM_WORLD, &persistent[1]);
  for (int i = 0; i < 3; ++i) {
    MPI_Startall(2, persistent);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
  }
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);
  // Sendrecv along the line 0 -> 1 -> 2 -> 3: the ends talk to MPI_PROC_NULL.
  char byte_out = 'x';
  char bytes_in[16] = {};
  MPI_Sendrecv(&byte_out, 1, MPI_CHAR, rank + 1 < size ? rank + 1 : MPI_PROC_NULL, 40, bytes_in, 16,
               MPI_CHAR, rank > 0 ? rank - 1 : MPI_PROC_NULL, 40, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  // Wait and Test on single requests: 3 longs from previous (Test loop), to next (Wait).
  long longs_out[3] = {1, 2, 3};
  long longs_in[3] = {};
  MPI_Request receive = MPI_REQUEST_NULL;
  MPI_Request send = MPI_REQUEST_NULL;
  MPI_Irecv(longs_in, 3, MPI_LONG, previous, 50, MPI_COMM_WORLD, &receive);
  MPI_Isend(longs_out, 3, MPI_LONG, next, 50, MPI_COMM_WORLD, &send);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  int done = 0;
  while (done == 0) MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
}

// Two messages on one stream whose receives complete in the opposite order to their posting.
// Even ranks send the next rank 1 int, then 100 (tag 60); odd ranks post two receives for
// them and, after a barrier (both messages are then on their way), complete the second-posted
// one first: with MPI_Wait in round 0, with MPI_Waitany over the requests in reverse order in
// round 1. MPI fills receives in the order they were posted: the first-posted always gets the
// 4-byte message.
void reordered_completion() {
  constexpr int kTag = 60;
  for (int round = 0; round < 2; ++round) {
    std::vector<int> one(1, rank);
    std::vector<int> hundred(100, rank);
    std::vector<int> first(100);
    std::vector<int> second(100);
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    const bool sender = rank % 2 == 0 && rank + 1 < size;
    const bool receiver = rank % 2 == 1;
    if (sender) {
      MPI_Send(one.data(), 1, MPI_INT, rank + 1, kTag, MPI_COMM_WORLD);
      MPI_Send(hundred.data(), 100, MPI_INT, rank + 1, kTag, MPI_COMM_WORLD);
    } else if (receiver) {
      MPI_Irecv(first.data(), 100, MPI_INT, rank - 1, kTag, MPI_COMM_WORLD, &requests[0]);
      MPI_Irecv(second.data(), 100, MPI_INT, rank - 1, kTag, MPI_COMM_WORLD, &requests[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!receiver) continue;
    if (round == 0) {
      MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
      MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    } else {
      MPI_Request reversed[2] = {requests[1], requests[0]};
      int index = 0;
      for (int k = 0; k < 2; ++k) MPI_Waitany(2, reversed, &index, MPI_STATUS_IGNORE);
    }
    if (first[0] != rank - 1 || second.size() != 100 || second[99] != rank - 1) {
      std::fprintf(stderr, "rank %d: messages filled the wrong receives\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
  }
}

void collectives() {
  std::vector<double> data(10, rank);
  MPI_Bcast(data.data(), 10, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  double sum = 0;
  double mine = rank;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
  int values[4] = {rank, rank, rank, rank};
  MPI_Allreduce(MPI_IN_PLACE, values, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  std::vector<int> gathered(2 * static_cast<std::size_t>(size));
  const int pair[2] = {rank, -rank};
  MPI_Gather(pair, 2, MPI_INT, gathered.data(), 2, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> counts(size);
  std::vector<int> displacements(size);
  for (int i = 0; i < size; ++i) {
    counts[i] = i + 1;
    displacements[i] = i * (i + 1) / 2;
  }
  std::vector<int> mine_v(rank + 1, rank);
  std::vector<int> all_v(size * (size + 1) / 2);
  MPI_Allgatherv(mine_v.data(), rank + 1, MPI_INT, all_v.data(), counts.data(),
                 displacements.data(), MPI_INT, MPI_COMM_WORLD);
  std::vector<short> to_all(3 * static_cast<std::size_t>(size), 1);
  std::vector<short> from_all(3 * static_cast<std::size_t>(size));
  MPI_Alltoall(to_all.data(), 3, MPI_SHORT, from_all.data(), 3, MPI_SHORT, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request request;
  MPI_Ibcast(data.data(), 5, MPI_DOUBLE, 3, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  std::vector<char> pieces(4 * static_cast<std::size_t>(size), 'a');
  std::vector<char> piece(4);
  MPI_Scatter(pieces.data(), 4, MPI_CHAR, piece.data(), 4, MPI_CHAR, 0, MPI_COMM_WORLD);
}

void communicators() {
  // Even and odd ranks, numbered in reverse: world 2 is rank 0 of the even communicator.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int half_rank = 0;
  MPI_Comm_rank(half, &half_rank);
  int token = rank;
  if (half_rank == 0)
    MPI_Send(&token, 1, MPI_INT, 1, 60, half);
  else
    MPI_Recv(&token, 1, MPI_INT, 0, 60, half, MPI_STATUS_IGNORE);
  MPI_Comm copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Barrier(copy);
  // Intercommunicator between the halves: leaders are half-rank 0 (world 2 and 3).
  MPI_Comm inter;
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 3 : 2, 70, &inter);
  // Each process sends to the remote group's rank of the same half-rank.
  int received = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, half_rank, 80, &received, 1, MPI_INT, half_rank, 80, inter,
               MPI_STATUS_IGNORE);
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, rank % 2, &merged);
  MPI_Barrier(merged);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&half);
}

void threads() {
  // Two threads per rank exchange with the same thread of the partner rank (rank ^ 1).
  const int partner = rank ^ 1;
  auto exchange = [partner](int thread) {
    int out = thread;
    int in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, partner, 100 + thread, &in, 1, MPI_INT, partner, 100 + thread,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  };
  std::thread second(exchange, 1);
  exchange(0);
  second.join();
}

void threaded_requests() {
  // Four threads per rank, each with its own tag, post a receive and a send to the same
  // thread of the partner rank and wait for both, many times: request handles are freed and
  // handed out again across threads all the time.
  const int partner = rank ^ 1;
  auto exchange = [partner](int thread) {
    for (int i = 0; i < 2000; ++i) {
      int out = i;
      int in = -1;
      MPI_Request requests[2];
      MPI_Irecv(&in, 1, MPI_INT, partner, 200 + thread, MPI_COMM_WORLD, &requests[0]);
      MPI_Isend(&out, 1, MPI_INT, partner, 200 + thread, MPI_COMM_WORLD, &requests[1]);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
  };
  std::vector<std::thread> others;
  for (int thread = 1; thread < 4; ++thread) others.emplace_back(exchange, thread);
  exchange(0);
  for (auto& other : others) other.join();
}

// MPI_User_function's signature: len cannot be made a pointer to const.
// NOLINTNEXTLINE(readability-non-const-parameter)
void mark_inside(void* in, void* inout, int* len, MPI_Datatype* /*datatype*/) {
  roctxMarkA("inside the reduction");
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

void external_ids() {
  // A marker made inside an MPI call (a user reduction runs inside MPI_Allreduce) carries
  // that call's external id.
  MPI_Op op;
  MPI_Op_create(mark_inside, 1, &op);
  int value = rank + 1;
  int total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  int provided = 0;
  // What daemons and some HPC codes do first: close every inherited descriptor.
  if (scenario == "closeall")
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  if (scenario == "threads" || scenario == "threaded-requests") {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (scenario == "p2p") {
    point_to_point();
  } else if (scenario == "collectives") {
    collectives();
  } else if (scenario == "reorder") {
    reordered_completion();
  } else if (scenario == "comms") {
    communicators();
  } else if (scenario == "threads") {
    if (provided < MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    threads();
  } else if (scenario == "threaded-requests") {
    if (provided < MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    threaded_requests();
  } else if (scenario == "external") {
    external_ids();
  } else if (scenario == "abort") {
    MPI_Barrier(MPI_COMM_WORLD);
    // A flush interval passes everywhere: the barrier is on disk.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
    // The others wait to be taken down.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (scenario == "fatal") {
    // Ranges, then at once (well within a flush interval) an MPI error under the default
    // MPI_ERRORS_ARE_FATAL on rank 1: Open MPI ends that rank from its error handler.
    for (int i = 0; i < 50; ++i) {
      roctxRangePushA("before the error");
      roctxRangePop();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      int value = 0;
      MPI_Send(&value, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);  // no such rank
    }
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (scenario == "kill") {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
      // A flush interval passes: the barrier is on disk.
      std::this_thread::sleep_for(std::chrono::seconds(1));
      raise(SIGKILL);
    }
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (scenario == "periodic") {
    // World barriers 30 ms apart: with a 10 ms interval, each one synchronises the clocks.
    for (int i = 0; i < 3; ++i) {
      usleep(30000);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm half;  // a barrier on another communicator never does
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    usleep(30000);
    MPI_Barrier(half);
    MPI_Comm_free(&half);
  } else if (scenario == "closeall") {
    // The first file the program opens gets the lowest free number, the recorder's once.
    const std::string name = "mydata." + std::to_string(rank) + ".txt";
    FILE* data = std::fopen(name.c_str(), "w");
    for (int i = 0; data != nullptr && i < 20000; ++i) {
      roctxRangePushA("line");
      std::fprintf(data, "line %d\n", i);
      roctxRangePop();
      if (i % 1000 == 0) MPI_Barrier(MPI_COMM_WORLD);
    }
    if (data == nullptr || std::fclose(data) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  } else if (scenario != "clock") {
    std::fprintf(stderr, "unknown scenario '%s'\n", scenario.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  if (rank == 0) std::printf("%s done\n", scenario.c_str());
  return 0;
}
