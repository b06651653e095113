//! Independent reference solutions (not FDTD) that the validation cases compare with.
//!
//! * [`wire_mom`]: a method-of-moments solver for the input impedance of a straight,
//!   centre-fed, perfectly conducting thin-wire dipole in free space, and the equivalent
//!   radius of an FDTD wire made of a line of PEC E-edges ([`wire_mom::FDTD_WIRE_RADIUS`]).
pub mod iris;
pub mod line2d;
pub mod wire_mom;
