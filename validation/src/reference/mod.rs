//! Independent reference solutions (not FDTD) that the validation cases compare with.
//!
//! * [`mie`]: the Mie series (Bohren & Huffman's BHMIE) for a homogeneous sphere in
//!   vacuum: Q_ext, Q_sca, Q_abs of a (lossy) dielectric sphere, the monostatic RCS of a
//!   PEC sphere.
//! * [`wire_mom`]: a method-of-moments solver for the input impedance of a straight,
//!   centre-fed, perfectly conducting thin-wire dipole in free space, and the equivalent
//!   radius of an FDTD wire made of a line of PEC E-edges ([`wire_mom::FDTD_WIRE_RADIUS`]).
pub mod iris;
pub mod line2d;
pub mod mie;
pub mod wire_mom;
