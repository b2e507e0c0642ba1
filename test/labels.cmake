# The labels of single tests, by name (test/README.md, "Labels"). ctest reads this file each time
# it lists the tests (ppe_discover_tests in test/CMakeLists.txt), so a change here needs no new
# configure. Each test program gives all its tests one label (unit, e2e, e2e-untouched, e2e-arc,
# e2e-reports, e2e-slurm); here every e2e-* test gets e2e too, and a test whose name matches a rule
# below gets the rule's label.
#
# slow: over 10 s in a run on two cores (build/Testing/Temporary/CTestCostData.txt, here and in a
# clean-clone CI run); a slow test of a unit program is labelled slow instead of unit, so that
# `ctest -L unit` stays the quick slice. The other labels name the outside tool a test runs,
# without which it skips.
set(ppe_label_rules
  slow "^(SlurmTest\\.(TimeLimitEnds|WarningSignal|SrunTasks)|CollectorTest\\.EveryThreadIsSampledIn|ObjectCode\\.ALibrarysUnits|ArcQemuBias\\.|InputLimits\\.FifoNobodyWrites|ArcInstruction\\.AgreesWithObjdumpOn(Every|DebiansArcLibc)|StaticCallGraph\\.)|/SignalSplitTest\\.ProcessDirectedSignalsNameTheThreadTheyDidNotSample/\"real\""
  slurm "^SlurmTest\\."
  mpi "^(MpiTest\\.(FourRanks|ANodeByNode|WhenOneRank|MpirunPasses)|ProcessPlumbing\\.(AnMpiJob|AnOutputDirectoryThatCannotBeMade|ASingletonMpiRun)|RingTest\\.TheAchievedRateOfMergedMpiRanks)"
  chromium "^HtmlReport\\.OpensInChromium"
  qemu "^(CfiUnwind\\.AgreesWithBacktraceOnAArch64|Live\\.Qemu|ArcInject\\.Qemu|ArcSplit\\.Qemu|ArcEndToEnd\\.|ArcQemuBias\\.|ArcDefects\\.(WrongElf|WrongArchitecture|Qemu|Baseline|AShortProgramUnderQemu))"
  gdbserver "^(Live\\.Gdbserver|ArcSplit\\.Gdbserver|ArcThreads\\.|ArcRestore\\.|ArcSample\\.CtrlC|ArcBadPeer\\.|ArcSharedLibraries\\.|ArcDefects\\.(AllStop|WrongElf|CompoundSpawn|RemoteHeader|QemuUnderAnotherName))")

# ppe_label_tests(LIST LABEL): each test named in the variable LIST (gtest_discover_tests' TEST_LIST)
# labelled LABEL, e2e if LABEL is an e2e-* one, and the label of every rule its name matches.
function(ppe_label_tests list label)
  set(base ${label})
  if(label MATCHES "^e2e-")
    list(APPEND base e2e)
  endif()
  foreach(test IN LISTS ${list})
    set(labels ${base})
    set(rules ${ppe_label_rules})
    while(rules)
      list(POP_FRONT rules rule_label rule_pattern)
      if(test MATCHES "${rule_pattern}")
        list(APPEND labels ${rule_label})
      endif()
    endwhile()
    list(FIND labels slow slow_at) # (ctest reads this without policies: no IN_LIST)
    if(NOT slow_at EQUAL -1)
      list(REMOVE_ITEM labels unit)
    endif()
    set_tests_properties("${test}" PROPERTIES LABELS "${labels}")
  endforeach()
endfunction()
