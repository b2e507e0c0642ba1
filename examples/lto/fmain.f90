! flto: a Fortran program of several files for the link-time optimisation tests (issue 24), built
! with and without -flto. Usage: flto [SCALE]   (SCALE 1 runs for about a tenth of a second)
! The work splits about 2 : 1 between gram.f90 and bsort.f90. Each is called from two places, so
! that link-time inlining (which would move their time into this file, the caller's module) leaves
! them alone: gfortran has no noinline attribute.
program flto
  implicit none
  integer, parameter :: n = 120
  double precision :: a(n, n), v(3000), total
  integer :: scale, rep, nargs
  character(len=32) :: arg

  scale = 1
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) scale
  end if
  total = 0
  call gram_setup(a, n)
  call gram(a, n)
  do rep = 1, 60 * scale
    call gram_setup(a, n)
    call gram(a, n)
    total = total + a(1, 1)
  end do
  call bsort_fill(v, size(v), 0)
  call bsort(v, size(v))
  do rep = 1, 2 * scale
    call bsort_fill(v, size(v), rep)
    call bsort(v, size(v))
    total = total + v(1)
  end do
  print *, total
end program flto
