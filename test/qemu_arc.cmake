# qemu-arc, the ARC HS user-mode emulator the ARC tests run (Debian packages none), found in this
# order: the cache variable PPE_QEMU_ARC (cmake -DPPE_QEMU_ARC=/path/to/qemu-arc), the environment
# variable QEMU_ARC at a configure where PPE_QEMU_ARC is not yet found, qemu-arc on PATH, then
# ../shared/tools beside the checkout (a worktree's is ../../shared). Not found: the tests that need
# it skip, saying so. The live unit tests (unit/gdbremote/live_test.cc) take $QEMU_ARC at run time
# too.
# Included by unit/gdbremote and e2e/arc_tests.cmake: the first finds it, the second reads the cache.
if(NOT PPE_QEMU_ARC AND NOT "$ENV{QEMU_ARC}" STREQUAL "")
  set(PPE_QEMU_ARC "$ENV{QEMU_ARC}" CACHE FILEPATH "qemu-arc, the ARC emulator of the ARC tests" FORCE)
endif()
find_program(PPE_QEMU_ARC qemu-arc PATHS ${PROJECT_SOURCE_DIR}/../shared/tools ${PROJECT_SOURCE_DIR}/../../shared/tools
  DOC "qemu-arc, the ARC emulator of the ARC tests")
