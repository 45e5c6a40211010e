# `simlab power` (app/power.c, no SDL): size and power of the simulated
# tests, curtailed replicates, the written files and bad input.
if(TARGET simlab_power)
  simlab_add_test(test_power SOURCES test_power.c LIBS simlab_power)
endif()
