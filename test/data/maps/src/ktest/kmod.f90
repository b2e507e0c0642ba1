! kmod: module procedures (gfortran names them __kmod_MOD_gram, __kmod_MOD_mxm).
module kmod
  implicit none
contains
  ! Modified Gram-Schmidt orthonormalisation of the columns of a.
  subroutine gram(a, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(n, n)
    integer :: j, k
    double precision :: r
    do j = 1, n
      do k = 1, j - 1
        r = dot_product(a(:, k), a(:, j))
        a(:, j) = a(:, j) - r * a(:, k)
      end do
      a(:, j) = a(:, j) / sqrt(dot_product(a(:, j), a(:, j)))
    end do
  end subroutine gram

  subroutine mxm(a, b, c, n)
    integer, intent(in) :: n
    double precision, intent(in) :: a(n, n), b(n, n)
    double precision, intent(out) :: c(n, n)
    integer :: i, j, k
    c = 0
    do j = 1, n
      do k = 1, n
        do i = 1, n
          c(i, j) = c(i, j) + a(i, k) * b(k, j)
        end do
      end do
    end do
  end subroutine mxm
end module kmod
