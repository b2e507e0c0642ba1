# ppe_arc_e2e_tests: examples/split.c (a 6:3:1 split between three functions) sampled by the real
# ppe-arc through real servers and formatted by the real ppeout: gdbserver (the native build,
# launched and attached), qemu-aarch64 (an aarch64 build, static) and qemu-arc (an ARC HS build
# with its map and listing). A missing server or cross compiler skips its tests with the reason.
set(split_src ${PROJECT_SOURCE_DIR}/examples/split.c)
find_program(PPE_GDBSERVER gdbserver)
find_program(PPE_QEMU_AARCH64 qemu-aarch64)
find_program(PPE_AARCH64_GCC aarch64-linux-gnu-gcc)
find_program(PPE_ARC_GCC arc-linux-gnu-gcc-12)
include(${PROJECT_SOURCE_DIR}/test/qemu_arc.cmake)

# The cross builds, each with its map; the ARC one with its listing too (-Wa,-adhln).
set(split_cross)
set(PPE_SPLIT_AARCH64 "")
if(PPE_AARCH64_GCC)
  set(PPE_SPLIT_AARCH64 ${CMAKE_CURRENT_BINARY_DIR}/split.aarch64)
  add_custom_command(OUTPUT ${PPE_SPLIT_AARCH64}
    COMMAND ${PPE_AARCH64_GCC} -g -O2 -static ${split_src} -o ${PPE_SPLIT_AARCH64} -Wl,-Map=${PPE_SPLIT_AARCH64}.map
    DEPENDS ${split_src} COMMENT "split.c for aarch64")
  list(APPEND split_cross ${PPE_SPLIT_AARCH64})
endif()
set(PPE_SPLIT_ARC "")
if(PPE_ARC_GCC)
  set(PPE_SPLIT_ARC ${CMAKE_CURRENT_BINARY_DIR}/split.arc)
  add_custom_command(OUTPUT ${PPE_SPLIT_ARC}
    COMMAND ${PPE_ARC_GCC} -g -O2 ${split_src} -o ${PPE_SPLIT_ARC} -Wl,-Map=${PPE_SPLIT_ARC}.map
      -Wa,-adhln=${PPE_SPLIT_ARC}.lis
    DEPENDS ${split_src} COMMENT "split.c for ARC HS")
  list(APPEND split_cross ${PPE_SPLIT_ARC})
endif()
# A second ARC program (the transcripts' loop.c): the wrong --elf of arc_defects_test.cc.
set(PPE_LOOP_ARC "")
if(PPE_ARC_GCC)
  set(PPE_LOOP_ARC ${CMAKE_CURRENT_BINARY_DIR}/loop.arc)
  set(loop_src ${PROJECT_SOURCE_DIR}/test/data/gdb-remote/loop.c)
  add_custom_command(OUTPUT ${PPE_LOOP_ARC} COMMAND ${PPE_ARC_GCC} -g -O2 ${loop_src} -o ${PPE_LOOP_ARC}
    DEPENDS ${loop_src} COMMENT "loop.c for ARC HS")
  list(APPEND split_cross ${PPE_LOOP_ARC})
endif()
# arc_shapes.c for ARC: two functions of different code shape (arc_qemu_bias_test.cc).
set(PPE_SHAPES_ARC "")
if(PPE_ARC_GCC)
  set(PPE_SHAPES_ARC ${CMAKE_CURRENT_BINARY_DIR}/shapes.arc)
  set(shapes_src ${CMAKE_CURRENT_SOURCE_DIR}/arc_shapes.c)
  add_custom_command(OUTPUT ${PPE_SHAPES_ARC} COMMAND ${PPE_ARC_GCC} -g -O2 ${shapes_src} -o ${PPE_SHAPES_ARC}
    DEPENDS ${shapes_src} COMMENT "arc_shapes.c for ARC HS")
  list(APPEND split_cross ${PPE_SHAPES_ARC})
endif()
# arc_calls.c: functions that count their own calls (arc_calls_test.cc), for ARC and natively.
set(PPE_CALLS_ARC "")
set(PPE_CALLS_THREADS_ARC "")
if(PPE_ARC_GCC)
  set(PPE_CALLS_ARC ${CMAKE_CURRENT_BINARY_DIR}/calls.arc)
  set(calls_src ${CMAKE_CURRENT_SOURCE_DIR}/arc_calls.c)
  add_custom_command(OUTPUT ${PPE_CALLS_ARC} COMMAND ${PPE_ARC_GCC} -g -O2 ${calls_src} -o ${PPE_CALLS_ARC}
    DEPENDS ${calls_src} COMMENT "arc_calls.c for ARC HS")
  set(PPE_CALLS_THREADS_ARC ${CMAKE_CURRENT_BINARY_DIR}/calls_threads.arc)
  add_custom_command(OUTPUT ${PPE_CALLS_THREADS_ARC}
    COMMAND ${PPE_ARC_GCC} -g -O2 -DCALLS_THREADS ${calls_src} -o ${PPE_CALLS_THREADS_ARC}
    DEPENDS ${calls_src} COMMENT "arc_calls.c with threads for ARC HS")
  list(APPEND split_cross ${PPE_CALLS_ARC} ${PPE_CALLS_THREADS_ARC})
endif()
# arc_inject.c: the same functions on pages the program makes writable, for code injection
# (arc_inject_test.cc).
set(PPE_INJECT_ARC "")
if(PPE_ARC_GCC)
  set(PPE_INJECT_ARC ${CMAKE_CURRENT_BINARY_DIR}/inject.arc)
  set(inject_src ${CMAKE_CURRENT_SOURCE_DIR}/arc_inject.c)
  add_custom_command(OUTPUT ${PPE_INJECT_ARC} COMMAND ${PPE_ARC_GCC} -g -O2 ${inject_src} -o ${PPE_INJECT_ARC}
    DEPENDS ${inject_src} COMMENT "arc_inject.c for ARC HS")
  list(APPEND split_cross ${PPE_INJECT_ARC})
endif()
add_executable(ppe_arc_calls arc_calls.c)
target_compile_options(ppe_arc_calls PRIVATE -O2 -g)
target_compile_definitions(ppe_arc_calls PRIVATE CALLS_THREADS)
ppe_gnu_built(ppe_arc_calls)
add_custom_target(ppe_arc_split_cross DEPENDS ${split_cross})

add_executable(ppe_arc_e2e_tests arc_sample_test.cc arc_defects_test.cc arc_restore_test.cc arc_qemu_bias_test.cc
  arc_calls_test.cc arc_inject_test.cc arc_aux_stub_test.cc)
target_link_libraries(ppe_arc_e2e_tests PRIVATE ppe_test_support ppe_profile ppe_arc GTest::gtest_main)
add_dependencies(ppe_arc_e2e_tests ppe-arc ppeout split mathlib ppe_arc_split_cross ppe_arc_loop ppe_arc_calls)
target_compile_definitions(ppe_arc_e2e_tests PRIVATE
  PPE_ARC="$<TARGET_FILE:ppe-arc>"
  PPEOUT="$<TARGET_FILE:ppeout>"
  PPE_SPLIT_NATIVE="$<TARGET_FILE:split>"
  PPE_MATHLIB="$<TARGET_FILE:mathlib>"
  PPE_LOOP_NATIVE="$<TARGET_FILE:ppe_arc_loop>"
  PPE_CALLS_NATIVE="$<TARGET_FILE:ppe_arc_calls>" PPE_CALLS_ARC="${PPE_CALLS_ARC}"
  PPE_CALLS_THREADS_ARC="${PPE_CALLS_THREADS_ARC}"
  PPE_INJECT_ARC="${PPE_INJECT_ARC}"
  PPE_SPLIT_AARCH64="${PPE_SPLIT_AARCH64}" PPE_SPLIT_ARC="${PPE_SPLIT_ARC}" PPE_LOOP_ARC="${PPE_LOOP_ARC}" PPE_SHAPES_ARC="${PPE_SHAPES_ARC}"
  PPE_GDBSERVER="$<$<BOOL:${PPE_GDBSERVER}>:${PPE_GDBSERVER}>"
  PPE_QEMU_AARCH64="$<$<BOOL:${PPE_QEMU_AARCH64}>:${PPE_QEMU_AARCH64}>"
  PPE_QEMU_ARC="$<$<BOOL:${PPE_QEMU_ARC}>:${PPE_QEMU_ARC}>")
# Label e2e-arc (and e2e, test/labels.cmake): ppe-arc samples through a debug server and never opens
# a perf event, so .ci/run leaves these out of its step where perf events are refused.
ppe_discover_tests(ppe_arc_e2e_tests e2e-arc PRE_TEST)

# ppe_arc_threads_tests: examples/threads.cc (workers doing 1:2:3:4 units of work) through the real
# gdbserver in non-stop and all-stop mode, formatted by the real ppeout.
add_executable(ppe_arc_threads_tests arc_threads_test.cc)
target_link_libraries(ppe_arc_threads_tests PRIVATE ppe_test_support ppe_profile GTest::gtest_main)
add_dependencies(ppe_arc_threads_tests ppe-arc ppeout threads)
target_compile_definitions(ppe_arc_threads_tests PRIVATE
  PPE_ARC="$<TARGET_FILE:ppe-arc>"
  PPEOUT="$<TARGET_FILE:ppeout>"
  PPE_THREADS="$<TARGET_FILE:threads>"
  PPE_GDBSERVER="$<$<BOOL:${PPE_GDBSERVER}>:${PPE_GDBSERVER}>")
ppe_discover_tests(ppe_arc_threads_tests e2e-arc PRE_TEST)
