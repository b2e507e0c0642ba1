! A module procedure and a main program: gfortran names them __kern_MOD_smooth and MAIN__,
! gdb shows kern::smooth and heat.
module kern
  implicit none
contains
  subroutine smooth(a, n)
    integer, intent(in) :: n
    real, intent(inout) :: a(n)
    integer :: i
    do i = 2, n - 1
      a(i) = (a(i - 1) + a(i) + a(i + 1)) / 3.0
    end do
  end subroutine smooth
end module kern

program heat
  use kern
  implicit none
  real :: a(1000)
  integer :: step
  a = 1.0
  a(500) = 100.0
  do step = 1, 100
    call smooth(a, size(a))
  end do
  print *, a(500)
end program heat
