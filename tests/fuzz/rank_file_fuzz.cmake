# Fuzzing the whole open path of a rank file (check helper process, layout, every row read
# back) with libFuzzer, built with clang as the chunk decoder's fuzzer is. A bounded run is
# part of the test suite (label fuzz), seeded with rank files from synthetic_job and from the
# recorder.
set(ROCPROF_RANK_FILE_FUZZER ${ROCPROF_TESTS_BINARY_DIR}/rank_file_fuzz)
set(ROCPROF_RANK_FILE_FUZZ_SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/rank_file_fuzz.cpp
    ${PROJECT_SOURCE_DIR}/lib/format/rank_file_reader.cpp
    ${PROJECT_SOURCE_DIR}/lib/format/hdf5_util.cpp
    ${PROJECT_SOURCE_DIR}/lib/format/compression.cpp
    ${PROJECT_SOURCE_DIR}/lib/format/zstd_filter.cpp
    ${PROJECT_SOURCE_DIR}/lib/format/schema.cpp
    ${PROJECT_SOURCE_DIR}/lib/format/text.cpp
    ${PROJECT_SOURCE_DIR}/merge/input/check_helpers.cpp
    ${PROJECT_SOURCE_DIR}/merge/input/rank_digest.cpp)
file(GLOB ROCPROF_RANK_FILE_FUZZ_HEADERS ${PROJECT_SOURCE_DIR}/lib/format/*.hpp
     ${PROJECT_SOURCE_DIR}/merge/input/*.hpp ${PROJECT_SOURCE_DIR}/merge/exchange/bytes.hpp)
add_custom_command(OUTPUT ${ROCPROF_RANK_FILE_FUZZER}
  COMMAND ${ROCPROF_CLANGXX} -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined
          -fno-sanitize-recover=all ${ROCPROF_FUZZ_INCLUDES} ${ROCPROF_RANK_FILE_FUZZ_SOURCES}
          ${HDF5_C_LIBRARIES} -lzstd -lz -lfmt -o ${ROCPROF_RANK_FILE_FUZZER}
  DEPENDS ${ROCPROF_RANK_FILE_FUZZ_SOURCES} ${ROCPROF_RANK_FILE_FUZZ_HEADERS}
  COMMENT "Building the rank file fuzzer with clang (libFuzzer)")
add_custom_target(build_rank_file_fuzz ALL DEPENDS ${ROCPROF_RANK_FILE_FUZZER})
add_test(NAME fuzz.rank_file
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_rank_file_fuzz.sh ${ROCPROF_RANK_FILE_FUZZER}
          $<TARGET_FILE:synthetic_job_tool> $<TARGET_FILE:traced_app> $<TARGET_FILE:rocprof-mpi>
          ${CMAKE_BINARY_DIR}/lib 60)
set_tests_properties(fuzz.rank_file PROPERTIES LABELS fuzz TIMEOUT 300
  ENVIRONMENT "HDF5_PLUGIN_PATH=${ROCPROF_HDF5_PLUGIN_DIR}")
