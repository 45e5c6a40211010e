# Tests of the demo-study generator (stimuli/gen) and of the committed
# bundles in assets/studies. The generator's own CMakeLists is pulled in
# here when stimuli/ does not add it itself.
if(NOT TARGET simlab_gen)
  add_subdirectory(${CMAKE_SOURCE_DIR}/stimuli/gen
                   ${CMAKE_BINARY_DIR}/stimuli/gen)
endif()
