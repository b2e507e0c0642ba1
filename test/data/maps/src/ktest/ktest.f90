! ktest: a Fortran program with several subroutines (PPE's KTEST3), in three compilation units:
! the main program, a module (kmod.f90) and fixed-form external subroutines (ksub.f).
program ktest
  use kmod, only: gram, mxm
  implicit none
  integer, parameter :: n = 60
  double precision :: a(n, n), b(n, n), c(n, n), v(500), total
  integer :: rep

  call fill(a, n, 1)
  call fill(b, n, 2)
  total = 0
  do rep = 1, 3
    call gram(a, n)
    call mxm(a, b, c, n)
    total = total + a(1, 1) + c(n, n)
  end do
  call fillv(v, size(v), 7)
  call bsort(v, size(v))
  total = total + v(1)
  call report(total)
contains
  subroutine report(x)
    double precision, intent(in) :: x
    print '(a, es12.5)', 'ktest checksum ', x
  end subroutine report
end program ktest
