! Gram-Schmidt orthonormalisation of the columns of a matrix.
subroutine gram_setup(a, n)
  implicit none
  integer, intent(in) :: n
  double precision, intent(out) :: a(n, n)
  integer :: i, j
  do j = 1, n
    do i = 1, n
      a(i, j) = 1.0d0 / dble(i + j) + merge(1.0d0, 0.0d0, i == j)
    end do
  end do
end subroutine gram_setup

subroutine gram(a, n)
  implicit none
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n, n)
  integer :: i, j
  double precision :: r
  do j = 1, n
    do i = 1, j - 1
      r = dot_product(a(:, i), a(:, j))
      a(:, j) = a(:, j) - r * a(:, i)
    end do
    a(:, j) = a(:, j) / sqrt(dot_product(a(:, j), a(:, j)))
  end do
end subroutine gram
