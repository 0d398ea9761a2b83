#include "formats/binfile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "formats/mapped_file.hpp"
#include "formats/test_util.hpp"

namespace cuzk::formats {
namespace {

using testing::make_binfile;

const char* names(uint32_t id) { return id == 9 ? "H points" : nullptr; }

Result<BinFile> parse(const std::vector<uint8_t>& b) {
  return BinFile::parse(b, "t.zkey", "zkey", 1, 1, &names);
}

TEST(BinFile, FindsSectionsInAnyOrder) {
  auto img = make_binfile("zkey", 1, {{9, {1, 2, 3}}, {1, {4}}, {2, {}}});
  auto f = parse(img);
  ASSERT_TRUE(f.is_ok()) << f.status().to_string();
  auto s9 = f->section(9);
  ASSERT_TRUE(s9.is_ok());
  EXPECT_EQ(s9->size(), 3u);
  EXPECT_EQ((*s9)[2], 3);
  EXPECT_EQ(f->section(1)->size(), 1u);
  EXPECT_EQ(f->section(2)->size(), 0u);
  EXPECT_EQ(f->offset_of(9), 24u);
}

TEST(BinFile, RejectsBadMagic) {
  auto f = parse(make_binfile("wtns", 1, {}));
  ASSERT_FALSE(f.is_ok());
  EXPECT_NE(f.status().message().find("bad magic \"wtns\", expected \"zkey\""), std::string::npos);
}

TEST(BinFile, RejectsUnsupportedVersion) {
  auto f = parse(make_binfile("zkey", 7, {}));
  ASSERT_FALSE(f.is_ok());
  EXPECT_NE(f.status().message().find("unsupported zkey version 7"), std::string::npos);
}

TEST(BinFile, RejectsDuplicateSection) {
  auto f = parse(make_binfile("zkey", 1, {{9, {1}}, {9, {2}}}));
  ASSERT_FALSE(f.is_ok());
  EXPECT_EQ(f.status().message(), "t.zkey: section 9 (H points): appears more than once");
}

TEST(BinFile, NamesMissingSection) {
  auto f = parse(make_binfile("zkey", 1, {{1, {1}}}));
  ASSERT_TRUE(f.is_ok());
  auto s = f->section(9);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().message(), "t.zkey: missing section 9 (H points)");
  EXPECT_EQ(s.status().code(), StatusCode::kDataLoss);
}

TEST(BinFile, RejectsEveryTruncation) {
  auto img = make_binfile("zkey", 1, {{1, {1, 2, 3, 4}}, {9, std::vector<uint8_t>(40, 7)}});
  for (size_t len = 0; len < img.size(); ++len) {
    std::vector<uint8_t> cut(img.begin(), img.begin() + long(len));
    auto f = parse(cut);
    EXPECT_FALSE(f.is_ok()) << "length " << len;
  }
  EXPECT_TRUE(parse(img).is_ok());
}

TEST(BinFile, TruncatedSectionMessageSaysHowShort) {
  auto img = make_binfile("zkey", 1, {{9, std::vector<uint8_t>(100, 0)}});
  img.resize(img.size() - 10);
  auto f = parse(img);
  ASSERT_FALSE(f.is_ok());
  EXPECT_EQ(f.status().message(),
            "t.zkey: section 9 (H points): declares 100 bytes at offset 24 but the file has only 90 bytes left "
            "(truncated file?)");
}

TEST(BinFile, RejectsTrailingBytes) {
  auto img = make_binfile("zkey", 1, {{1, {1}}});
  img.push_back(0);
  auto f = parse(img);
  ASSERT_FALSE(f.is_ok());
  EXPECT_NE(f.status().message().find("1 trailing bytes"), std::string::npos);
}

TEST(BinFile, SectionSizeNearUint64MaxDoesNotOverflow) {
  auto img = make_binfile("zkey", 1, {{1, {1}}});
  for (int i = 0; i < 8; ++i) img[16 + i] = 0xff;
  EXPECT_FALSE(parse(img).is_ok());
}

TEST(SectionReader, NamesTheFieldItRanOutOn) {
  std::vector<uint8_t> data = {1, 0, 0, 0, 9};
  SectionReader in(data, "f: section 2 (Groth header)");
  uint32_t a = 0, b = 0;
  ASSERT_TRUE(in.u32(a, "n8q").is_ok());
  EXPECT_EQ(a, 1u);
  Status s = in.u32(b, "nVars");
  EXPECT_EQ(s.message(), "f: section 2 (Groth header): truncated reading nVars (needs 4 bytes at offset 4, section has 5)");
}

TEST(BinWriter, OutputParsesBackWithPatchedSizes) {
  testing::ScratchDir dir;
  std::string path = dir.file("w.zkey");
  BinWriter w;
  ASSERT_TRUE(w.open(path, "zkey", 1, 2).is_ok());
  ASSERT_TRUE(w.begin_section(9).is_ok());
  ASSERT_TRUE(w.write_u32(0xdeadbeef).is_ok());
  ASSERT_TRUE(w.write_zeros(300).is_ok());
  ASSERT_TRUE(w.end_section().is_ok());
  ASSERT_TRUE(w.begin_section(1).is_ok());
  ASSERT_TRUE(w.end_section().is_ok());
  ASSERT_TRUE(w.close().is_ok());
  auto m = MappedFile::open(path);
  ASSERT_TRUE(m.is_ok());
  auto f = BinFile::parse(m->bytes(), "w.zkey", "zkey", 1, 1, nullptr);
  ASSERT_TRUE(f.is_ok()) << f.status().to_string();
  EXPECT_EQ(f->section(9)->size(), 304u);
  EXPECT_EQ(load_u32(f->section(9)->data()), 0xdeadbeefu);
  EXPECT_EQ(f->section(1)->size(), 0u);
}

TEST(BinWriter, RejectsWrongSectionCount) {
  testing::ScratchDir dir;
  BinWriter w;
  ASSERT_TRUE(w.open(dir.file("x"), "zkey", 1, 2).is_ok());
  ASSERT_TRUE(w.begin_section(1).is_ok());
  ASSERT_TRUE(w.end_section().is_ok());
  EXPECT_FALSE(w.close().is_ok());
}

TEST(MappedFile, ReportsMissingFileAsNotFound) {
  auto m = MappedFile::open("/nonexistent/dir/x.zkey");
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
}

TEST(MappedFile, MapsEmptyFile) {
  testing::ScratchDir dir;
  testing::write_bytes(dir.file("e"), {});
  auto m = MappedFile::open(dir.file("e"));
  ASSERT_TRUE(m.is_ok());
  EXPECT_EQ(m->size(), 0u);
  EXPECT_FALSE(parse({}).is_ok());
}

// Resident pages of this process, from /proc/self/statm (Linux).
size_t resident_pages() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return got == 2 ? resident : 0;
}

TEST(MappedFile, DroppedPagesLeaveTheResidentSetAndReadBackUnchanged) {
  testing::ScratchDir dir;
  constexpr size_t kBytes = size_t(8) << 20;
  std::vector<uint8_t> data(kBytes);
  for (size_t i = 0; i < kBytes; ++i) data[i] = uint8_t(i * 131 + (i >> 12));
  testing::write_bytes(dir.file("big"), data);
  auto m = MappedFile::open(dir.file("big"));
  ASSERT_TRUE(m.is_ok());
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  uint64_t sum = 0;
  for (size_t i = 0; i < kBytes; i += page) sum += m->data()[i];  // fault every page in
  const size_t touched = resident_pages();
  // Ranges partly or wholly outside the mapping are clipped or ignored.
  m->drop_resident({data.data(), data.size()});
  m->drop_resident({m->data() + kBytes / 2, kBytes});
  m->drop_resident(m->bytes().first(kBytes / 2));
  const size_t dropped = resident_pages();
  EXPECT_GE(touched - dropped, kBytes / page * 9 / 10) << "touched " << touched << " pages, " << dropped << " after";
  EXPECT_TRUE(std::equal(data.begin(), data.end(), m->data()));  // faulted back from the page cache
  EXPECT_GT(sum, 0u);
}

}  // namespace
}  // namespace cuzk::formats
