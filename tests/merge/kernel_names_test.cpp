// Kernels a rank file names only by their kernel object ("kernel object 0x..."): the merge
// names them from the file's kernel_symbols (format 2.6), and leaves unknown ones as they are.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "lib/format/rank_file_reader.hpp"
#include "lib/format/rank_file_writer.hpp"
#include "merge/events/op_names.hpp"

namespace {

using namespace rocprof::format;

ActivityRow dispatch(StringId name) {
  ActivityRow row{};
  row.domain = 1;  // ACTIVITY_DOMAIN_HSA_OPS
  row.op = 0;      // a dispatch
  row.kernel_name = name;
  return row;
}

TEST(KernelNames, AddressesAreNamedFromTheFilesKernelSymbols) {
  const std::string path =
      ::testing::TempDir() + "kernel_names_" + std::to_string(getpid()) + ".h5";
  std::remove(path.c_str());
  StringId known = 0;
  StringId unknown = 0;
  StringId named = 0;
  {
    std::string error;
    RankMetadata metadata;
    metadata.rank = 0;
    metadata.size = 1;
    auto writer = RankFileWriter::create(path, metadata, Compression{}, error);
    ASSERT_TRUE(writer) << error;
    known = writer->intern("kernel object 0x7f0000001100");
    unknown = writer->intern("kernel object 0xdead");
    named = writer->intern("gate(float*)");
    const CodeObjectRow code_object{0x7f0000001000, 0x4000, 0x7f0000000000, 1,
                                    writer->intern("file:///k.co")};
    KernelSymbolRow symbol{};
    symbol.kernel_object = 0x7f0000001100;
    symbol.load_base = 0x7f0000001000;
    symbol.name = writer->intern("stencil(float*, int)");
    ASSERT_TRUE(writer->append(code_object) && writer->append(symbol));
    ASSERT_TRUE(writer->append(dispatch(known)) && writer->append(dispatch(unknown)) &&
                writer->append(dispatch(named)));
    ASSERT_TRUE(writer->close(RankFileStatus{}));
  }
  const RankFileReader reader(path);
  const rocprof::merge::OpNames names(reader);
  EXPECT_EQ(names.of_activity(dispatch(known)), "stencil(float*, int)");
  EXPECT_EQ(names.kernel_name(dispatch(known)), "stencil(float*, int)");
  EXPECT_EQ(names.of_activity(dispatch(unknown)), "kernel object 0xdead");
  EXPECT_EQ(names.of_activity(dispatch(named)), "gate(float*)");
  EXPECT_EQ(names.kernel_name(dispatch(0)), "");
  std::remove(path.c_str());
}

}  // namespace
