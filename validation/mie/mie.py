"""Mie series (Bohren & Huffman BHMIE) for the analysis script: Q_ext, Q_sca, Q_back."""
import cmath, math, sys
def bhmie(x, m):
    nstop = int(x + 4*x**(1/3) + 2)
    y = m*x
    nmx = int(max(nstop, abs(y)) + 15)
    d = [0j]*(nmx+1)
    for n in range(nmx-1, 0, -1):
        en = n+1
        d[n] = en/y - 1/(d[n+1] + en/y)
    psi0, psi1 = math.cos(x), math.sin(x)
    chi0, chi1 = -math.sin(x), math.cos(x)
    xi1 = complex(psi1, -chi1)
    qsca = qext = 0; qback = 0j
    for n in range(1, nstop+1):
        en = n
        fn = (2*en+1)/(en*(en+1))
        psi = (2*en-1)*psi1/x - psi0
        chi = (2*en-1)*chi1/x - chi0
        xi = complex(psi, -chi)
        an = ((d[n]/m + en/x)*psi - psi1)/((d[n]/m + en/x)*xi - xi1)
        bn = ((m*d[n] + en/x)*psi - psi1)/((m*d[n] + en/x)*xi - xi1)
        qsca += (2*en+1)*(abs(an)**2 + abs(bn)**2)
        qext += (2*en+1)*(an.real + bn.real)
        qback += (2*en+1)*(-1)**n*(an - bn)
        psi0, psi1 = psi1, psi
        chi0, chi1 = chi1, chi
        xi1 = complex(psi1, -chi1)
    return 2/x**2*qext, 2/x**2*qsca, abs(qback)**2/x**2

