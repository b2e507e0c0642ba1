program call_paths_f
  implicit none
  integer(8) :: k, rounds
  real(8) :: s
  character(len=32) :: arg
  rounds = 300
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  s = 0
  do k = 1, rounds
    call caller_a(40000_8, s)
    call caller_b(40000_8, s)
  end do
  print *, 'call_paths_f', s
end program call_paths_f
