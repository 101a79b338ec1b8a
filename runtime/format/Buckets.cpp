//===- Buckets.cpp - Executables holding one program per shape bucket -----===//

#include "runtime/format/Buckets.h"

#include "runtime/format/Checksum.h"
#include "runtime/format/Executable.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace neuron::rt {

using json = nlohmann::json;

namespace {

/// The fields that make one bucket's program; the rest of a manifest
/// (target, options, kernels...) is shared.
constexpr const char *kProgramFields[] = {"tensors", "inputs",    "outputs",
                                          "program", "spmd", "host_code"};

/// The sections of the merged executable: names unique, identical
/// contents stored once.
class SectionTable {
public:
  /// The name `view`'s bytes are stored under: an existing section with the
  /// same bytes, else a new one named `name` (or a fresh name when that is
  /// taken).
  std::string add(const SectionView &view, const std::string &name) {
    uint32_t crc = crc32c(view.data, view.size);
    for (size_t i : byCrc[crc])
      if (sections[i].data.size() == view.size &&
          std::memcmp(sections[i].data.data(), view.data, view.size) == 0)
        return sections[i].name;
    std::string unique = name;
    for (int n = 1; names.count(unique); ++n)
      unique = absl::StrCat("s", sections.size(), ".", n);
    names.insert(unique);
    byCrc[crc].push_back(sections.size());
    sections.push_back(
        {unique, view.alignment,
         std::vector<uint8_t>(view.data, view.data + view.size)});
    return unique;
  }

  std::vector<Section> sections;

private:
  std::set<std::string> names;
  std::map<uint32_t, std::vector<size_t>> byCrc;
};

/// Makes `program`'s constants and host code name their sections as
/// `names` maps them (the merged executable's names).
void renameSections(json &program, std::map<std::string, std::string> &names) {
  if (program.contains("tensors"))
    for (json &tensor : program["tensors"])
      if (tensor.contains("section") && tensor["section"].is_string())
        tensor["section"] = names[tensor["section"].get<std::string>()];
  if (program.contains("host_code") &&
      program["host_code"].contains("section") &&
      program["host_code"]["section"].is_string())
    program["host_code"]["section"] =
        names[program["host_code"]["section"].get<std::string>()];
}

absl::Status bucketsError(std::string_view path, std::string_view expected,
                          const json &found) {
  return absl::InvalidArgumentError(absl::StrCat(
      "manifest: buckets", std::string(path), ": expected ",
      std::string(expected), ", found ",
      found.dump().substr(0, 80)));
}

/// `dims` read from `field` of `buckets`: each `{index, dim}` naming a
/// dimension of one of `io` (the manifest's inputs or outputs).
absl::StatusOr<std::vector<BucketDim>>
readDims(const json &buckets, const char *field, const json &io,
         const json &tensors) {
  std::vector<BucketDim> dims;
  const json *list = buckets.contains(field) ? &buckets[field] : nullptr;
  if (!list || !list->is_array())
    return bucketsError(absl::StrCat(".", field), "an array",
                        list ? *list : json());
  for (size_t i = 0; i < list->size(); ++i) {
    const json &entry = (*list)[i];
    std::string path = absl::StrCat(".", field, "[", i, "]");
    if (!entry.is_object() || !entry.contains("index") ||
        !entry.contains("dim") || !entry["index"].is_number_integer() ||
        !entry["dim"].is_number_integer())
      return bucketsError(path, "{\"index\": I, \"dim\": D}", entry);
    BucketDim d{entry["index"].get<int64_t>(), entry["dim"].get<int64_t>()};
    if (d.index < 0 || d.index >= int64_t(io.size()))
      return bucketsError(path + ".index",
                          absl::StrCat("an index below ", io.size()), entry);
    const json &tensor = tensors[io[d.index]["tensor"].get<size_t>()];
    if (d.dim < 0 || d.dim >= int64_t(tensor["shape"].size()))
      return bucketsError(path + ".dim",
                          absl::StrCat("a dimension of the tensor's ",
                                       tensor["shape"].size()),
                          entry);
    dims.push_back(d);
  }
  return dims;
}

/// The shape of input or output `index` of `view` (`field` "inputs" or
/// "outputs"), or nullptr when it does not name a tensor with a shape.
const json *shapeOf(const json &view, const char *field, int64_t index) {
  if (!view.contains(field) || !view[field].is_array() ||
      !view.contains("tensors") || !view["tensors"].is_array() ||
      index < 0 || size_t(index) >= view[field].size())
    return nullptr;
  const json &io = view[field][size_t(index)];
  if (!io.is_object() || !io.contains("tensor") ||
      !io["tensor"].is_number_unsigned() ||
      io["tensor"].get<size_t>() >= view["tensors"].size())
    return nullptr;
  const json &tensor = view["tensors"][io["tensor"].get<size_t>()];
  if (!tensor.is_object() || !tensor.contains("shape") ||
      !tensor["shape"].is_array())
    return nullptr;
  return &tensor["shape"];
}

/// Checks that `view`, bucket `i`'s program, has `inputs` inputs and
/// `outputs` outputs, each bucketed dimension of size `sizes[i]` and the
/// length input an i32 scalar.
absl::Status checkProgram(const json &view, const Buckets &b, size_t i,
                          size_t inputs, size_t outputs) {
  std::string path = i + 1 < b.sizes.size()
                         ? absl::StrCat(".programs[", i, "]")
                         : std::string(" (the top-level program)");
  auto count = [&](const char *field) {
    return view.contains(field) && view[field].is_array()
               ? view[field].size()
               : size_t(0);
  };
  if (count("inputs") != inputs || count("outputs") != outputs)
    return bucketsError(path, absl::StrCat(inputs, " inputs and ", outputs,
                                           " outputs, as every bucket"),
                        json(count("inputs")));
  for (auto [field, dims] :
       {std::pair{"inputs", &b.inputs}, std::pair{"outputs", &b.outputs}})
    for (const BucketDim &d : *dims) {
      const json *shape = shapeOf(view, field, d.index);
      if (!shape || d.dim >= int64_t(shape->size()) ||
          (*shape)[size_t(d.dim)] != json(b.sizes[i]))
        return bucketsError(
            absl::StrCat(path, ".", field, "[", d.index, "]"),
            absl::StrCat("dimension ", d.dim, " of size ", b.sizes[i]),
            shape ? *shape : json());
    }
  if (b.lengthInput) {
    const json *shape = shapeOf(view, "inputs", *b.lengthInput);
    const json *tensor =
        shape ? &view["tensors"][view["inputs"][size_t(*b.lengthInput)]
                                     ["tensor"]
                                         .get<size_t>()]
              : nullptr;
    if (!shape || !shape->empty() || !tensor->contains("dtype") ||
        (*tensor)["dtype"] != "i32")
      return bucketsError(path + ".inputs", "an i32 scalar length input",
                          json(*b.lengthInput));
  }
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<size_t> Buckets::choose(int64_t length) const {
  if (length < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("the length must be at least 1, found ", length));
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] >= length)
      return i;
  return absl::OutOfRangeError(
      absl::StrCat("the input's length ", length,
                   " is beyond the largest bucket (buckets: ", sizesText(),
                   "); compile with a larger one in --buckets"));
}

std::string Buckets::sizesText() const { return absl::StrJoin(sizes, ", "); }

absl::StatusOr<std::vector<uint8_t>>
mergeBuckets(const std::vector<BucketExecutable> &buckets,
             const json &record) {
  if (buckets.empty())
    return absl::InvalidArgumentError("mergeBuckets: no bucket");
  std::vector<Executable> exes;
  for (const BucketExecutable &b : buckets) {
    NEURON_ASSIGN_OR_RETURN(
        exe, Executable::parse(b.bytes, absl::StrCat("bucket ", b.size)));
    if (!exes.empty() && b.size <= buckets[exes.size() - 1].size)
      return absl::InvalidArgumentError(
          "mergeBuckets: bucket sizes must increase");
    exes.push_back(std::move(exe));
  }
  const Executable &largest = exes.back();
  json merged = largest.manifest();
  json &kernels = merged["kernels"];
  std::set<std::string> kernelNames;
  for (const json &k : kernels)
    kernelNames.insert(k.value("name", ""));
  SectionTable table;
  std::map<std::string, std::string> largestSections;
  for (const SectionView &s : largest.sections())
    largestSections[s.name] = table.add(s, s.name);
  renameSections(merged, largestSections);

  json programs = json::array();
  for (size_t b = 0; b + 1 < exes.size(); ++b) {
    const json &m = exes[b].manifest();
    std::string suffix = absl::StrCat(".b", buckets[b].size);
    std::map<std::string, std::string> kernelName, sectionName;
    for (const json &k : m.value("kernels", json::array())) {
      std::string name = k.value("name", "");
      auto same = std::find(kernels.begin(), kernels.end(), k);
      if (same != kernels.end()) {
        kernelName[name] = name;
        continue;
      }
      std::string unique = name;
      while (kernelNames.count(unique))
        unique += suffix;
      kernelNames.insert(unique);
      kernelName[name] = unique;
      json renamed = k;
      renamed["name"] = unique;
      kernels.push_back(std::move(renamed));
    }
    for (const SectionView &s : exes[b].sections())
      sectionName[s.name] = table.add(s, s.name);
    json program = {{"size", buckets[b].size}};
    for (const char *field : kProgramFields)
      if (m.contains(field))
        program[field] = m[field];
    for (json &step : program["program"])
      if (step.contains("kernel") && step["kernel"].is_string())
        step["kernel"] = kernelName[step["kernel"].get<std::string>()];
    renameSections(program, sectionName);
    programs.push_back(std::move(program));
  }
  json &out = merged["buckets"] = record;
  out["sizes"] = json::array();
  for (const BucketExecutable &b : buckets)
    out["sizes"].push_back(b.size);
  out["programs"] = std::move(programs);

  ExecutableWriter writer(std::move(merged));
  writer.setManifestEncoding(largest.manifestEncoding());
  for (Section &s : table.sections)
    writer.addSection(std::move(s));
  return writer.serialize();
}

absl::StatusOr<std::optional<Buckets>> readBuckets(const json &manifest) {
  if (!manifest.contains("buckets"))
    return std::nullopt;
  const json &b = manifest["buckets"];
  if (!b.is_object())
    return bucketsError("", "an object", b);
  Buckets result;
  const json *sizes = b.contains("sizes") ? &b["sizes"] : nullptr;
  const json *programs = b.contains("programs") ? &b["programs"] : nullptr;
  if (!sizes || !sizes->is_array() || sizes->empty())
    return bucketsError(".sizes", "a non-empty array", sizes ? *sizes : json());
  if (!programs || !programs->is_array() ||
      programs->size() + 1 != sizes->size())
    return bucketsError(".programs",
                        absl::StrCat("an array of ", sizes->size() - 1,
                                     " programs (every size but the "
                                     "largest, whose program is the "
                                     "top-level one)"),
                        programs ? json(programs->size()) : json());
  for (size_t i = 0; i < sizes->size(); ++i) {
    const json &s = (*sizes)[i];
    if (!s.is_number_integer() || s.get<int64_t>() < 1 ||
        (i && s.get<int64_t>() <= result.sizes.back()))
      return bucketsError(absl::StrCat(".sizes[", i, "]"),
                          "increasing sizes of at least 1", s);
    result.sizes.push_back(s.get<int64_t>());
    if (i + 1 < sizes->size()) {
      const json &p = (*programs)[i];
      if (!p.is_object() || p.value("size", json()) != s)
        return bucketsError(absl::StrCat(".programs[", i, "].size"),
                            s.dump(), p.is_object() ? p.value("size", json())
                                                    : p);
    }
  }
  // Program fields are validated by parseProgram on the bucket's manifest;
  // here only what the dims need.
  auto listOf = [&](const char *field) {
    return manifest.contains(field) && manifest[field].is_array()
               ? manifest[field]
               : json::array();
  };
  json tensors = listOf("tensors"), inputs = listOf("inputs"),
       outputs = listOf("outputs");
  auto io = [&](const json &list) {
    for (const json &e : list)
      if (!e.is_object() || !e.contains("tensor") ||
          !e["tensor"].is_number_unsigned() ||
          e["tensor"].get<size_t>() >= tensors.size() ||
          !tensors[e["tensor"].get<size_t>()].contains("shape") ||
          !tensors[e["tensor"].get<size_t>()]["shape"].is_array())
        return false;
    return true;
  };
  if (!io(inputs) || !io(outputs))
    return absl::InvalidArgumentError(
        "manifest: buckets: the inputs and outputs must name tensors with "
        "shapes");
  NEURON_ASSIGN_OR_RETURN(in, readDims(b, "inputs", inputs, tensors));
  NEURON_ASSIGN_OR_RETURN(out, readDims(b, "outputs", outputs, tensors));
  result.inputs = std::move(in);
  result.outputs = std::move(out);
  if (b.contains("pad")) {
    if (!b["pad"].is_number())
      return bucketsError(".pad", "a number", b["pad"]);
    result.pad = b["pad"].get<double>();
  }
  if (b.contains("length_input")) {
    const json &l = b["length_input"];
    if (!l.is_number_integer() || l.get<int64_t>() < 0 ||
        l.get<int64_t>() >= int64_t(inputs.size()))
      return bucketsError(".length_input",
                          absl::StrCat("an input index below ", inputs.size()),
                          l);
    const json &t = tensors[inputs[l.get<size_t>()]["tensor"].get<size_t>()];
    if (!t.contains("dtype") || t["dtype"] != "i32" || !t["shape"].empty())
      return bucketsError(".length_input", "an i32 scalar input", t);
    result.lengthInput = l.get<int64_t>();
  }
  for (const BucketDim &d : result.inputs)
    if (result.lengthInput && d.index == *result.lengthInput)
      return bucketsError(".inputs", "dimensions of inputs other than the "
                                     "length", json(d.index));
  // Every bucket's program has the top-level one's inputs and outputs, the
  // bucketed dimensions of its size and the same length input.
  for (size_t i = 0; i < result.sizes.size(); ++i) {
    const json &view = i + 1 < result.sizes.size() ? (*programs)[i] : manifest;
    NEURON_RETURN_IF_ERROR(checkProgram(view, result, i, inputs.size(),
                                        outputs.size()));
  }
  return result;
}

json bucketManifest(const json &manifest, size_t index) {
  const json &programs = manifest["buckets"]["programs"];
  if (index >= programs.size())
    return manifest;
  json view = manifest;
  for (const char *field : kProgramFields)
    view.erase(field);
  for (auto &[key, value] : programs[index].items())
    if (key != "size")
      view[key] = value;
  return view;
}

} // namespace neuron::rt
