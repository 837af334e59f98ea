// Test program: a region with one annotation of every value type at its begin, one at its
// end, and an annotated progress point. With the argument `hostile`: instead, names and values
// that break strict readers (bytes that are not UTF-8, terminal escape sequences, NaN and
// infinities).
#include <rocprofiler-systems/user.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

namespace {

int hostile() {
  rocprofsys_user_start_trace();
  double nan = std::numeric_limits<double>::quiet_NaN();
  double plus = std::numeric_limits<double>::infinity();
  double minus = -plus;
  rocprofsys_annotation_t values[] = {{"nan", ROCPROFSYS_VALUE_FLOAT64, &nan},
                                      {"plus", ROCPROFSYS_VALUE_FLOAT64, &plus},
                                      {"minus", ROCPROFSYS_VALUE_FLOAT64, &minus}};
  int result = rocprofsys_user_push_annotated_region("odd values", values, 3);
  result |= rocprofsys_user_pop_region("odd values");
  result |= rocprofsys_user_push_region("bad\xff\xfename");
  result |= rocprofsys_user_pop_region("bad\xff\xfename");
  result |= rocprofsys_user_push_region("\x1b[31mred\x1b[0m");
  result |= rocprofsys_user_pop_region("\x1b[31mred\x1b[0m");
  std::printf("hostile %d\n", result);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "hostile") == 0) return hostile();
  // Bad input first: a pop with no region open on this thread, a region without a name.
  std::printf("pop without push %d, no name %d\n", rocprofsys_user_pop_region("none"),
              rocprofsys_user_push_region(nullptr));
  rocprofsys_user_start_trace();
  char text[] = "hello";
  size_t size = 42;
  int64_t i64 = -5000000000LL;
  uint64_t u64 = 18000000000000000000ULL;
  double f64 = 2.5;
  int32_t i32 = -7;
  uint32_t u32 = 4000000000U;
  float f32 = 0.25F;
  int16_t i16 = -300;
  uint16_t u16 = 65000;
  void* pointer = &size;
  rocprofsys_annotation_t all[] = {
      {"text", ROCPROFSYS_VALUE_CSTR, text},   {"size", ROCPROFSYS_VALUE_SIZE_T, &size},
      {"i64", ROCPROFSYS_VALUE_INT64, &i64},   {"u64", ROCPROFSYS_VALUE_UINT64, &u64},
      {"f64", ROCPROFSYS_VALUE_FLOAT64, &f64}, {"pointer", ROCPROFSYS_VALUE_VOID_P, pointer},
      {"i32", ROCPROFSYS_VALUE_INT32, &i32},   {"u32", ROCPROFSYS_VALUE_UINT32, &u32},
      {"f32", ROCPROFSYS_VALUE_FLOAT32, &f32}, {"i16", ROCPROFSYS_VALUE_INT16, &i16},
      {"u16", ROCPROFSYS_VALUE_UINT16, &u16},
  };
  int result = rocprofsys_user_push_annotated_region("annotated", all, sizeof all / sizeof *all);
  double residual = 0.125;
  rocprofsys_annotation_t end[] = {{"residual", ROCPROFSYS_FP64, &residual}};
  result |= rocprofsys_user_pop_annotated_region("annotated", end, 1);
  rocprofsys_annotation_t step[] = {{"step", ROCPROFSYS_U32, &u32}};
  result |= rocprofsys_user_annotated_progress("checkpoint", step, 1);
  std::printf("result %d pointer %llu\n", result,
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer)));
  return 0;
}
