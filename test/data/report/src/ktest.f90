! ktest: a Fortran program with several subroutines, in the spirit of PPE's KTEST3 (Table 2).
! Usage: ktest [SCALE]   (SCALE 1 runs for about a second; default 1)
! The work splits about 4 : 2 : 1 between gram (Gram-Schmidt), mxm (matrix product) and
! bsort (bubble sort), each in its own subroutine, so a profile shows three hot modules.
program ktest
  implicit none
  integer, parameter :: n = 200
  double precision :: a(n, n), b(n, n), c(n, n), v(6000), total
  integer :: scale, rep, nargs
  character(len=32) :: arg

  scale = 1
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) scale
  end if
  call fill(a, n, 1)
  call fill(b, n, 2)
  total = 0
  do rep = 1, 60 * scale
    call gram(a, n)
    total = total + a(1, 1)
  end do
  do rep = 1, 40 * scale
    call mxm(a, b, c, n)
    total = total + c(n, n)
  end do
  do rep = 1, scale
    call fillv(v, size(v), rep)
    call bsort(v, size(v))
    total = total + v(1)
  end do
  print '(a, es12.5)', 'ktest checksum ', total
end program ktest

subroutine fill(a, n, seed)
  implicit none
  integer, intent(in) :: n, seed
  double precision, intent(out) :: a(n, n)
  integer :: i, j
  do j = 1, n
    do i = 1, n
      a(i, j) = 1.0d0 / (i + j + seed) + merge(1.0d0, 0.0d0, i == j)
    end do
  end do
end subroutine fill

subroutine fillv(v, n, seed)
  implicit none
  integer, intent(in) :: n, seed
  double precision, intent(out) :: v(n)
  integer :: i
  do i = 1, n
    v(i) = mod(i * 7919 + seed * 104729, 10007)
  end do
end subroutine fillv

! Modified Gram-Schmidt orthonormalisation of the columns of a.
subroutine gram(a, n)
  implicit none
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n, n)
  integer :: i, j, k
  double precision :: s
  do k = 1, n
    s = 0.0d0
    do i = 1, n
      s = s + a(i, k) * a(i, k)
    end do
    s = 1.0d0 / sqrt(s)
    do i = 1, n
      a(i, k) = a(i, k) * s
    end do
    do j = k + 1, n
      s = 0.0d0
      do i = 1, n
        s = s + a(i, k) * a(i, j)
      end do
      do i = 1, n
        a(i, j) = a(i, j) - s * a(i, k)
      end do
    end do
  end do
end subroutine gram

! c = a * b, the textbook triple loop.
subroutine mxm(a, b, c, n)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: a(n, n), b(n, n)
  double precision, intent(out) :: c(n, n)
  integer :: i, j, k
  do j = 1, n
    do i = 1, n
      c(i, j) = 0.0d0
    end do
    do k = 1, n
      do i = 1, n
        c(i, j) = c(i, j) + a(i, k) * b(k, j)
      end do
    end do
  end do
end subroutine mxm

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
