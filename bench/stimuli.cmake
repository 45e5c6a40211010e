# Study loading benchmark (never run by ctest): a study of 1,000 classes
# read from a file, its items answered from four options each, against the
# same items with two classes, measured in the same run.
if(TARGET simlab_stimuli)
  add_executable(bench_classes stimuli/bench_classes.c)
  target_link_libraries(bench_classes PRIVATE simlab_stimuli simlab_warnings)
endif()
