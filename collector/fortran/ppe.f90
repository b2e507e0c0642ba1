! ppe: Fortran interface to the collector's control calls (see ppe.h).
! Plain `call ppe_start()` works without this module too; the module adds type checking and
! the optional page count of ppe_init, as PPE$INIT(ISTART, IEND[, NPAGE]) had.
module ppe
  use iso_c_binding, only: c_long_long, c_int
  implicit none
  interface
    subroutine ppe_init(istart, iend, npage) bind(C, name='ppe_init_f')
      import :: c_long_long, c_int
      integer(c_long_long), intent(in) :: istart, iend
      integer(c_int), intent(in), optional :: npage
    end subroutine
    subroutine ppe_set(interval, mode) bind(C, name='ppe_set_')
      import :: c_int
      integer(c_int), intent(in) :: interval, mode
    end subroutine
    subroutine ppe_start() bind(C, name='ppe_start_')
    end subroutine
    subroutine ppe_pause() bind(C, name='ppe_pause_')
    end subroutine
    subroutine ppe_stop() bind(C, name='ppe_stop_')
    end subroutine
  end interface
end module ppe
