! Bubble sort of pseudo-random numbers.
subroutine bsort_fill(v, n, seed)
  implicit none
  integer, intent(in) :: n, seed
  double precision, intent(out) :: v(n)
  integer :: i
  do i = 1, n
    v(i) = modulo(dble(i) * 0.618034d0 + dble(seed) * 0.1d0, 1.0d0)
  end do
end subroutine bsort_fill

subroutine bsort(v, n)
  implicit none
  integer, intent(in) :: n
  double precision, intent(inout) :: v(n)
  integer :: i, j
  double precision :: t
  do i = n - 1, 1, -1
    do j = 1, i
      if (v(j) > v(j + 1)) then
        t = v(j)
        v(j) = v(j + 1)
        v(j + 1) = t
      end if
    end do
  end do
end subroutine bsort
