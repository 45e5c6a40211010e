# Fault injection (tests/fault/): an LD_PRELOAD shim makes writes and syncs
# of the database fail with ENOSPC, EIO or EROFS part-way through
# `simlab simulate` (fault_simulate) and `simlab run --autopilot`
# (fault_run, SDL builds only); fault_test.sh checks the error, what the
# database kept and that the study is finished in the end. Needs the simlab
# program and the sqlite3 shell (skipped without it).
if(NOT TARGET simlab)
  return()
endif()
add_library(simlab_fault_shim MODULE fault/fault_shim.c)
target_link_libraries(simlab_fault_shim PRIVATE simlab_warnings
                      ${CMAKE_DL_LIBS})
# The shim wraps libc only; it stays out of the sanitizers (whose runtime
# must come first in the process).
target_compile_options(simlab_fault_shim PRIVATE -fno-sanitize=all)
target_link_options(simlab_fault_shim PRIVATE -fno-sanitize=all)
set(modes simulate)
if(TARGET simlab_runner)
  list(APPEND modes run)
endif()
foreach(mode ${modes})
  add_test(NAME fault_${mode}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/fault/fault_test.sh ${mode}
                   $<TARGET_FILE:simlab> $<TARGET_FILE:simlab_fault_shim>
                   ${CMAKE_SOURCE_DIR}/assets/studies/text-forward)
  set_tests_properties(fault_${mode} PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 600)
endforeach()
