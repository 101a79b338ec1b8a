/*===- run_executable.c - A C program on the runtime's C API -------------===*\
|*                                                                            *|
|*   neuron-capi-run EXE INPUT_DIR OUT_DIR [LENGTH]                           *|
|*                                                                            *|
|* Loads EXE through runtime/capi/NeuronRuntime.h, prints its target, ranks,  *|
|* inputs and outputs, runs it on INPUT_DIR/inputI.npy (the data after each  *|
|* file's header, as neuron-run --random-inputs wrote them), writes output  *|
|* I's bytes to OUT_DIR/resultI.raw and prints the profile's format. Then it *|
|* calls the API wrongly and prints each status and message: bytes that are *|
|* no executable, a missing file, an index out of range, a buffer of the    *|
|* wrong size, NULL buffers. With LENGTH (an executable of shape buckets)   *|
|* it prints the buckets, sets the length first, and tries one beyond them. *|
|* Built as C, so the header is checked to be C.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "runtime/capi/NeuronRuntime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at `path` (malloc'ed) and its size, or NULL. */
static unsigned char *readFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(bytes, 1, (size_t)n, f);
  fclose(f);
  return bytes;
}

/* The data of the .npy file at `path` (after its header), or NULL. */
static unsigned char *readNpyData(const char *path, size_t *size,
                                  unsigned char **file) {
  size_t n = 0;
  *file = readFile(path, &n);
  if (!*file || n < 12 || memcmp(*file, "\x93NUMPY", 6) != 0)
    return NULL;
  size_t prefix = (*file)[6] == 1 ? 10 : 12;
  size_t header = (*file)[6] == 1
                      ? (size_t)(*file)[8] | (size_t)(*file)[9] << 8
                      : (size_t)(*file)[8] | (size_t)(*file)[9] << 8 |
                            (size_t)(*file)[10] << 16 |
                            (size_t)(*file)[11] << 24;
  if (prefix + header > n)
    return NULL;
  *size = n - prefix - header;
  return *file + prefix + header;
}

static void printInfo(const char *what, size_t i, NeuronTensorInfo info) {
  printf("%s %zu '%s' %s [", what, i, info.name, info.dtype);
  for (size_t d = 0; d < info.rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)info.shape[d]);
  printf("] %zu bytes\n", info.bytes);
}

static int failed(const char *call, NeuronStatus status) {
  fprintf(stderr, "%s: status %d: %s\n", call, (int)status,
          neuronLastError());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: neuron-capi-run EXE INPUT_DIR OUT_DIR [LENGTH]\n");
    return 2;
  }
  NeuronExecutable *exe = NULL;
  NeuronStatus s = neuronExecutableLoadFile(argv[1], &exe);
  if (s != NEURON_OK)
    return failed("neuronExecutableLoadFile", s);
  if (argc == 5) {
    const int64_t *sizes = NULL;
    size_t buckets = neuronExecutableBuckets(exe, &sizes);
    printf("buckets:");
    for (size_t i = 0; i < buckets; ++i)
      printf(" %lld", (long long)sizes[i]);
    printf(" (length %lld)\n", (long long)neuronExecutableLength(exe));
    s = neuronExecutableSetLength(exe, (int64_t)sizes[buckets - 1] + 1);
    printf("beyond: %d %s\n", (int)s, neuronLastError());
    if ((s = neuronExecutableSetLength(exe, atoll(argv[4]))) != NEURON_OK)
      return failed("neuronExecutableSetLength", s);
  }
  printf("target: %s\nranks: %lld\n", neuronExecutableTarget(exe),
         (long long)neuronExecutableRanks(exe));

  size_t nIn = neuronExecutableInputCount(exe);
  size_t nOut = neuronExecutableOutputCount(exe);
  const void **inputs = calloc(nIn + 1, sizeof(void *));
  size_t *inputBytes = calloc(nIn + 1, sizeof(size_t));
  unsigned char **files = calloc(nIn + 1, sizeof(unsigned char *));
  void **outputs = calloc(nOut + 1, sizeof(void *));
  size_t *outputBytes = calloc(nOut + 1, sizeof(size_t));
  char path[4096];
  for (size_t i = 0; i < nIn; ++i) {
    NeuronTensorInfo info;
    if ((s = neuronExecutableInput(exe, i, &info)) != NEURON_OK)
      return failed("neuronExecutableInput", s);
    printInfo("input", i, info);
    snprintf(path, sizeof(path), "%s/input%zu.npy", argv[2], i);
    inputs[i] = readNpyData(path, &inputBytes[i], &files[i]);
    if (!inputs[i]) {
      fprintf(stderr, "cannot read the data of %s\n", path);
      return 1;
    }
  }
  for (size_t i = 0; i < nOut; ++i) {
    NeuronTensorInfo info;
    if ((s = neuronExecutableOutput(exe, i, &info)) != NEURON_OK)
      return failed("neuronExecutableOutput", s);
    printInfo("output", i, info);
    outputs[i] = malloc(info.bytes ? info.bytes : 1);
    outputBytes[i] = info.bytes;
  }

  if ((s = neuronExecutableRun(exe, inputs, inputBytes, outputs,
                               outputBytes)) != NEURON_OK)
    return failed("neuronExecutableRun", s);
  for (size_t i = 0; i < nOut; ++i) {
    snprintf(path, sizeof(path), "%s/result%zu.raw", argv[3], i);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(outputs[i], 1, outputBytes[i], f) != outputBytes[i]) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    fclose(f);
  }
  printf("run: ok\n");
  const char *profile = NULL;
  if ((s = neuronExecutableProfile(exe, &profile)) != NEURON_OK)
    return failed("neuronExecutableProfile", s);
  const char *format = strstr(profile, "neuron-profile/");
  printf("profile: %.16s\n", format ? format : "(no format)");

  /* Wrong calls: each prints its status and message. */
  NeuronExecutable *none = NULL;
  s = neuronExecutableLoadBytes("not an executable", 17, &none);
  printf("bytes: %d %s\n", (int)s, neuronLastError());
  s = neuronExecutableLoadFile("/nonexistent/x.nxe", &none);
  printf("missing: %d %s\n", (int)s, neuronLastError());
  s = neuronExecutableLoadFileFlags(argv[1], NEURON_LOAD_REFUSE_HOST_CODE,
                                    &none);
  printf("refuse host code: %d, %zu host calls %s\n", (int)s,
         neuronExecutableHostCalls(exe), s ? neuronLastError() : "");
  if (s == NEURON_OK)
    neuronExecutableDestroy(none);
  NeuronTensorInfo info;
  s = neuronExecutableInput(exe, nIn + 5, &info);
  printf("index: %d %s\n", (int)s, neuronLastError());
  if (nIn > 0) {
    inputBytes[0] -= 1;
    s = neuronExecutableRun(exe, inputs, inputBytes, outputs, outputBytes);
    printf("size: %d %s\n", (int)s, neuronLastError());
    inputBytes[0] += 1;
    s = neuronExecutableRun(exe, NULL, NULL, outputs, outputBytes);
    printf("null: %d %s\n", (int)s, neuronLastError());
  }
  s = neuronExecutableRun(NULL, inputs, inputBytes, outputs, outputBytes);
  printf("no executable: %d %s\n", (int)s, neuronLastError());

  for (size_t i = 0; i < nIn; ++i)
    free(files[i]);
  for (size_t i = 0; i < nOut; ++i)
    free(outputs[i]);
  free(files);
  free(inputs);
  free(inputBytes);
  free(outputs);
  free(outputBytes);
  neuronExecutableDestroy(exe);
  neuronExecutableDestroy(NULL);
  return 0;
}
