//===- MpiRun.cpp - An SPMD run's exchange over MPI -----------------------===//
//
// Every exchange starts with one MPI_Allgather of a fixed header per
// process (its status code and the sizes of its message and block), so
// every process learns at once whether any failed. Then the messages (on a
// failure) or the blocks travel: broadcast from each process in turn, or
// sent to process 0, in pieces of at most 1 GiB because MPI counts are
// ints. Errors from MPI are returned (MPI_ERRORS_RETURN), never aborts.
//
//===----------------------------------------------------------------------===//

#include "runtime/mpi/MpiRun.h"

#include "absl/strings/str_format.h"

#include <mpi.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <initializer_list>
#include <cstdint>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace neuron::rt {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr int64_t kPiece = int64_t(1) << 30;

absl::Status mpiStatus(const char *call, int code) {
  if (code == MPI_SUCCESS)
    return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::UnavailableError(absl::StrFormat(
      "%s failed: %s (did another process of the run end?)", call,
      std::string_view(text, length)));
}

/// Returns from the enclosing function when `code` (of MPI call `call`) is
/// an error.
#define NEURON_RETURN_IF_MPI_ERROR(call, code)                                 \
  do {                                                                         \
    if (absl::Status s = mpiStatus(call, code); !s.ok())                       \
      return s;                                                                \
  } while (false)

/// What the SIGTERM handler writes; set once before it is installed.
std::string terminationMessage;

extern "C" void onTerminate(int) {
  ssize_t written =
      ::write(STDERR_FILENO, terminationMessage.data(), terminationMessage.size());
  (void)written;
  ::_exit(1);
}

struct Header {
  int64_t code = 0, messageBytes = 0, blockBytes = 0;
};

class Run final : public MpiRun {
public:
  Run(int rank, int size, int local, std::string host)
      : rank(rank), size(size), local(local), hostName(std::move(host)) {}

  int64_t process() const override { return rank; }
  int64_t processes() const override { return size; }
  int64_t localProcesses() const override { return local; }
  const std::string &host() const override { return hostName; }
  void finish() override { MPI_Finalize(); }

  absl::StatusOr<std::vector<Bytes>> exchange(Bytes block,
                                              const absl::Status &status,
                                              bool toAll) override {
    std::string message(status.message());
    if (!status.ok())
      block.clear();
    Header mine{int64_t(status.code()), int64_t(message.size()),
                int64_t(block.size())};
    std::vector<Header> headers(size);
    NEURON_RETURN_IF_MPI_ERROR(
        "MPI_Allgather", MPI_Allgather(&mine, 3, MPI_INT64_T, headers.data(),
                                       3, MPI_INT64_T, MPI_COMM_WORLD));
    bool failed = std::any_of(headers.begin(), headers.end(),
                              [](const Header &h) { return h.code != 0; });
    if (failed) {
      std::vector<absl::Status> statuses(size);
      for (int p = 0; p < size; ++p) {
        std::string text = p == rank ? message : std::string();
        text.resize(headers[p].messageBytes);
        NEURON_RETURN_IF_MPI_ERROR(
            "MPI_Bcast", broadcast(reinterpret_cast<uint8_t *>(text.data()),
                                   int64_t(text.size()), p));
        statuses[p] = absl::Status(absl::StatusCode(headers[p].code), text);
      }
      return exchangeFailure(statuses, rank);
    }
    std::vector<Bytes> blocks(size);
    for (int p = 0; p < size; ++p) {
      if (!toAll && rank != 0 && p != rank)
        continue;
      if (p == rank)
        blocks[p] = std::move(block);
      else
        blocks[p].resize(headers[p].blockBytes);
      if (toAll)
        NEURON_RETURN_IF_MPI_ERROR(
            "MPI_Bcast",
            broadcast(blocks[p].data(), int64_t(blocks[p].size()), p));
      else if (p != 0)
        NEURON_RETURN_IF_MPI_ERROR(
            rank == 0 ? "MPI_Recv" : "MPI_Send",
            sendToFirst(blocks[p].data(), int64_t(blocks[p].size()), p));
    }
    if (!toAll && rank != 0)
      blocks.clear();
    return blocks;
  }

private:
  /// MPI_Bcast of `bytes` at `data` from process `root`, piece by piece.
  static int broadcast(uint8_t *data, int64_t bytes, int root) {
    for (int64_t at = 0; at < bytes; at += kPiece)
      if (int code = MPI_Bcast(data + at, int(std::min(kPiece, bytes - at)),
                               MPI_BYTE, root, MPI_COMM_WORLD);
          code != MPI_SUCCESS)
        return code;
    return MPI_SUCCESS;
  }

  /// Moves `bytes` at `data` from process `from` to process 0.
  int sendToFirst(uint8_t *data, int64_t bytes, int from) const {
    for (int64_t at = 0; at < bytes; at += kPiece) {
      int count = int(std::min(kPiece, bytes - at));
      int code = rank == 0 ? MPI_Recv(data + at, count, MPI_BYTE, from, 0,
                                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
                           : MPI_Send(data + at, count, MPI_BYTE, 0, 0,
                                      MPI_COMM_WORLD);
      if (code != MPI_SUCCESS)
        return code;
    }
    return MPI_SUCCESS;
  }

  int rank, size, local;
  std::string hostName;
};

} // namespace

/// The first of the environment variables `names` that is set, or "?".
static std::string fromLauncher(std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (const char *value = std::getenv(name))
      return value;
  return "?";
}

/// Sets what a SIGTERM prints and installs its handler.
static void onTermination(const std::string &process, const std::string &of,
                          const std::string &host) {
  terminationMessage = absl::StrFormat(
      "neuron-run: error: process %s of %s%s was stopped by the MPI "
      "launcher: another process of the run ended first (the launcher's "
      "message names it)\n",
      process, of, host.empty() ? "" : " (on " + host + ")");
  std::signal(SIGTERM, onTerminate);
}

absl::StatusOr<std::unique_ptr<MpiRun>> joinMpiRun(int &argc, char **&argv) {
  // MPI_Init waits for every process: one that dies first ends it there.
  onTermination(
      fromLauncher({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}),
      fromLauncher({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}), "");
  if (int code = MPI_Init(&argc, &argv); code != MPI_SUCCESS)
    return mpiStatus("MPI_Init", code);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1, local = 1, length = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm shared;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                          MPI_INFO_NULL, &shared) == MPI_SUCCESS) {
    MPI_Comm_size(shared, &local);
    MPI_Comm_free(&shared);
  }
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(host, &length);
  auto run = std::make_unique<Run>(rank, size, local, std::string(host, length));
  onTermination(std::to_string(rank), std::to_string(size), run->host());
  return run;
}

} // namespace neuron::rt
