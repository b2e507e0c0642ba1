! call_paths_f: call_paths.c's leaf and its two callers (70:30) in Fortran, one procedure per file
! (so that gfortran -O2 inlines none; it omits the frame pointer), as users build programs.
subroutine leaf(n, s)
  implicit none
  integer(8), intent(in) :: n
  real(8), intent(inout) :: s
  integer(8) :: i
  do i = 1, n
    s = s + 1.0d0 / dble(i)
  end do
end subroutine leaf
