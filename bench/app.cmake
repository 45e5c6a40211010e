# Runner benchmarks (never run by ctest): input timing through XTest under
# Xvfb and launch time. Run with bench/app/run.sh (and bench/app/expl.sh: explanation primitives).
if(NOT TARGET simlab_runner)
  return()
endif()
pkg_check_modules(XTST IMPORTED_TARGET xtst x11 xi xdamage sdl2)
if(NOT XTST_FOUND)
  return()
endif()
add_executable(bench_app app/bench_app.c)
target_link_libraries(bench_app PRIVATE PkgConfig::XTST m Threads::Threads
                      simlab_warnings)
