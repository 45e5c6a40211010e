# Fuzz harnesses (tests/fuzz/): one LLVMFuzzerTestOneInput per input format
# simlab reads. Every build compiles each harness with a small replay driver
# (tests/fuzz/replay.c) and runs it on the seed corpus and the saved crash
# reproducers (fuzz_replay_*), so the normal gcc build keeps them compiling
# and regression-tested. With -DSIMLAB_FUZZ=ON (clang only, best with
# -DSIMLAB_SANITIZE=ON) the libraries get coverage instrumentation and each
# harness is also linked with libFuzzer as fuzz_NAME; scripts/fuzz.sh runs
# them (for a smoke time in .ci/run, for hours by hand).
option(SIMLAB_FUZZ "Build the libFuzzer harnesses (requires clang)" OFF)
if(SIMLAB_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SIMLAB_FUZZ=ON needs clang (CC=clang cmake ...), "
                        "not ${CMAKE_C_COMPILER_ID}")
  endif()
  if(NOT SIMLAB_SANITIZE)
    message(WARNING "SIMLAB_FUZZ without SIMLAB_SANITIZE finds crashes only, "
                    "not memory errors")
  endif()
  # Coverage feedback from our code (the system libraries stay plain).
  foreach(lib simlab_common simlab_stimuli simlab_analysis)
    target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link)
  endforeach()
endif()

set(SIMLAB_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

# simlab_fuzz_target(NAME SOURCE LIBS... [DEFS ...])
function(simlab_fuzz_target name source)
  cmake_parse_arguments(F "" "" "LIBS;DEFS" ${ARGN})
  foreach(kind replay fuzz)
    if(kind STREQUAL "fuzz" AND NOT SIMLAB_FUZZ)
      continue()
    endif()
    set(exe ${kind}_${name})
    if(kind STREQUAL "replay")
      set(exe fuzz_replay_${name})
      add_executable(${exe} ${SIMLAB_FUZZ_DIR}/${source}
                     ${SIMLAB_FUZZ_DIR}/replay.c)
    else()
      add_executable(${exe} ${SIMLAB_FUZZ_DIR}/${source})
      target_compile_options(${exe} PRIVATE -fsanitize=fuzzer)
      target_link_options(${exe} PRIVATE -fsanitize=fuzzer)
    endif()
    target_link_libraries(${exe} PRIVATE ${F_LIBS} simlab_warnings)
    target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${exe} PRIVATE
      SIMLAB_TEST_DATA="${SIMLAB_TEST_DATA}" _DEFAULT_SOURCE ${F_DEFS})
  endforeach()
  add_test(NAME fuzz_replay_${name}
           COMMAND fuzz_replay_${name} ${SIMLAB_FUZZ_DIR}/corpus/${name}
                   ${SIMLAB_FUZZ_DIR}/crashes/${name})
endfunction()

simlab_fuzz_target(study_json fuzz_bundle.c LIBS simlab_stimuli
  DEFS FUZZ_FILE="study.json"
       FUZZ_FIXTURES="valid-all valid-hase-fwd valid-hase-cf")
simlab_fuzz_target(items_csv fuzz_bundle.c LIBS simlab_stimuli
  DEFS FUZZ_FILE="items.csv" FUZZ_FIXTURES="valid-hase-fwd")
simlab_fuzz_target(items_jsonl fuzz_bundle.c LIBS simlab_stimuli
  DEFS FUZZ_FILE="items.jsonl" FUZZ_FIXTURES="valid-all")
simlab_fuzz_target(page fuzz_page.c LIBS simlab_stimuli)
simlab_fuzz_target(image fuzz_image.c LIBS simlab_stimuli)
simlab_fuzz_target(npy fuzz_npy.c LIBS simlab_stimuli)
simlab_fuzz_target(dataset_csv fuzz_dataset.c LIBS simlab_analysis)
simlab_fuzz_target(dataset_db fuzz_dataset.c LIBS simlab_analysis
  DEFS FUZZ_DB)
