! fortran_api: the collector's control calls from Fortran. Only the second loop (in
! counted_work) is profiled: profiling is paused around the first one (ignored_work).
program fortran_api
  use ppe
  implicit none
  double precision :: s1, s2
  integer :: scale, nargs
  character(len=32) :: arg
  scale = 1
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) scale
  end if
  call ppe_pause()
  call ignored_work(s1, scale)
  call ppe_start()
  call counted_work(s2, scale)
  print '(a, 2es12.5)', 'fortran_api ', s1, s2
end program fortran_api

subroutine ignored_work(s, scale)
  implicit none
  double precision, intent(out) :: s
  integer, intent(in) :: scale
  integer :: i
  s = 0
  do i = 1, 50000000 * scale
    s = s + sqrt(dble(i))
  end do
end subroutine ignored_work

subroutine counted_work(s, scale)
  implicit none
  double precision, intent(out) :: s
  integer, intent(in) :: scale
  integer :: i
  s = 0
  do i = 1, 50000000 * scale
    s = s + sqrt(dble(i) + 1)
  end do
end subroutine counted_work
