subroutine caller_a(n, s)
  implicit none
  integer(8), intent(in) :: n
  real(8), intent(inout) :: s
  call leaf(7 * n, s)
  s = s + 1
end subroutine caller_a

subroutine caller_b(n, s)
  implicit none
  integer(8), intent(in) :: n
  real(8), intent(inout) :: s
  call leaf(3 * n, s)
  s = s * 0.5d0
end subroutine caller_b
