//! The benchmark workload (`fdtd bench`, the criterion benches, the examples): one
//! scene, built through the same path as a user's, so every backend steps the same problem.
use crate::scene::{
    Boundaries, Boundary, CpmlParams, Domain, Material, MaterialKind, Object, Scene, Shape, Source, SourceKind, Time,
    TimeEnd,
};
use crate::waveform::Waveform;
use crate::Component;

/// The benchmark scene: an `n³` cube of 1 mm cells.
pub fn bench_scene(n: usize, cpml: usize, steps: usize, dielectric: bool) -> Scene {
    let d = 1e-3;
    let c = n as f64 * d / 2.0;
    let mut materials = vec![Material::vacuum(), Material::pec()];
    let mut objects = Vec::new();
    if dielectric {
        materials.push(Material {
            name: "dielectric".into(),
            kind: MaterialKind::Dielectric {
                eps_r: 4.0,
                mu_r: 1.0,
                sigma: 0.01,
            },
            poles: Vec::new(),
        });
        objects.push(Object {
            material: 2,
            shape: Shape::Sphere {
                center: [c; 3],
                radius: n as f64 * d / 4.0,
            },
            subpixel: true,
        });
    }
    let boundary = Boundary::Cpml(CpmlParams {
        cells: cpml,
        ..CpmlParams::default()
    });
    Scene {
        path: "bench".into(),
        text: String::new(),
        domain: Domain {
            cells: [n; 3],
            cell_size: [d; 3],
        },
        time: Time {
            end: TimeEnd::Steps(steps),
            courant: 0.99,
            decay_db: None,
        },
        boundaries: Boundaries {
            faces: std::array::from_fn(|_| boundary.clone()),
        },
        materials,
        objects,
        sources: vec![Source {
            name: "dipole".into(),
            kind: SourceKind::Current,
            component: Component::Ez,
            position: [c + 0.1 * d; 3],
            waveform: Waveform::gaussian_from_frequency(1.0, 30e9),
        }],
        plane_waves: Vec::new(),
        probes: vec![],
        snapshots: vec![],
        monitors: vec![],
        farfields: vec![],
        cross_sections: vec![],
        ports: vec![],
        lumped: vec![],
        frequencies: None,
        drive_each: false,
    }
}
