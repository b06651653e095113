//! How fast STL solids load and voxelise: a UV sphere of about 10⁶ triangles, built in
//! memory, written as binary STL, read back (stl_io, welding, the closedness check),
//! and voxelised onto 200³ cell centres.
//!
//! ```text
//! cargo run --release -p fdtd-core --example stl_voxelize [-- LAT LON N]
//! ```
//! (defaults 500 × 1000 bands: 999 000 triangles, N = 200). Prints each stage's wall
//! time and the cells inside against the ball's volume.
use fdtd_core::model::stl::voxelize;
use fdtd_core::scene::mesh::{binary_stl, uv_sphere, Mesh, Placement};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("LAT LON N"))
        .collect();
    let (lat, lon, n) = (
        args.first().copied().unwrap_or(500),
        args.get(1).copied().unwrap_or(1000),
        args.get(2).copied().unwrap_or(200),
    );
    let threads = rayon::current_num_threads();
    let (c, r) = ([0.5, 0.5, 0.5], 0.45);
    let t = Instant::now();
    let tris = uv_sphere(c, r, lat, lon);
    let f32s: Vec<[[f32; 3]; 3]> = tris.iter().map(|t| t.map(|v| v.map(|x| x as f32))).collect();
    let bytes = binary_stl(&f32s);
    println!(
        "sphere: {} triangles, {} MB of binary STL (generated in {:.2} s)",
        tris.len(),
        bytes.len() / 1_000_000,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let mesh = Mesh::from_bytes(&bytes, "sphere.stl", Placement::default()).expect("a closed sphere");
    println!("read + weld + closedness check: {:.3} s", t.elapsed().as_secs_f64());
    let centres: Vec<f64> = (0..n).map(|i| (i as f64 + 0.5) / n as f64).collect();
    for pass in ["first (builds the z bins)", "second"] {
        let t = Instant::now();
        let v = voxelize(&mesh, &centres, &centres, &centres);
        let dt = t.elapsed().as_secs_f64();
        let inside = v.iter().filter(|&&x| x).count();
        let ball = 4.0 / 3.0 * std::f64::consts::PI * (r * n as f64).powi(3);
        println!(
            "voxelise {n}³ ({pass}): {dt:.3} s on {threads} thread(s), {inside} cells inside ({:+.3} % of the ball's volume)",
            100.0 * (inside as f64 / ball - 1.0)
        );
    }
}
