C     ksub: fixed-form external subroutines (gfortran names them fill_, fillv_, bsort_).
      SUBROUTINE FILL(A, N, SEED)
      INTEGER N, SEED, I, J
      DOUBLE PRECISION A(N, N)
      DO 20 J = 1, N
        DO 10 I = 1, N
          A(I, J) = 1.0D0 / (I + J + SEED)
          IF (I .EQ. J) A(I, J) = A(I, J) + 1.0D0
   10   CONTINUE
   20 CONTINUE
      END

      SUBROUTINE FILLV(V, N, SEED)
      INTEGER N, SEED, I
      DOUBLE PRECISION V(N)
      DO 10 I = 1, N
        V(I) = MOD(I * 7919 + SEED * 104729, 10007)
   10 CONTINUE
      END

      SUBROUTINE BSORT(V, N)
      INTEGER N, I, J
      DOUBLE PRECISION V(N), T
      DO 20 I = 1, N - 1
        DO 10 J = 1, N - I
          IF (V(J) .GT. V(J + 1)) THEN
            T = V(J)
            V(J) = V(J + 1)
            V(J + 1) = T
          END IF
   10   CONTINUE
   20 CONTINUE
      END
