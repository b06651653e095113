//! STL solids (`shape = "stl"`): reading (binary and ASCII, through `stl_io`), the
//! load-time checks, the placement (scale, rotation, offset), and the inside/outside test
//! along grid lines that voxelises them.
//!
//! **Inside** is decided by parity: a point is inside when a line through it crosses the
//! surface an odd number of times on one side of it. The surface must therefore be closed:
//! every edge shared by exactly two triangles ([`Mesh`] refuses open and non-manifold
//! meshes at load). Normals and the triangles' orientation are ignored; overlapping or
//! self-intersecting shells give the parity (their symmetric difference).
//!
//! **Crossings** ([`Mesh::crossings`]): a line along axis `n` at `(u, v)` in the other
//! two axes (`b = n+1`, `c = n+2` mod 3) crosses a triangle when `(u, v)` lies in the
//! triangle's projection onto the `(b, c)` plane. The test uses exact orientation
//! predicates (`robust::orient2d`, Shewchuk) with each edge evaluated in one canonical
//! direction, and a point exactly on a projected edge or vertex belongs to one side by a
//! fixed rule (the "top-left" rule of rasterisers), so a line through an edge or a vertex
//! shared by several triangles is counted once where the surface passes through and
//! zero or two times where it folds back: parity stays right without perturbing the line.
//! Triangles whose projection has zero area (walls parallel to the line) never count.
//! Points exactly on the surface: inside or outside by that rule along `b, c`, and along
//! the line a crossing at exactly the point counts as below it (half-open).
//!
//! **Speed**: per line axis, triangles are binned once by their projected bounding boxes
//! on a uniform 2-D grid of about one bin per triangle ([`Bins`], built on first use), so
//! a line tests only the few triangles of its bin.
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The largest STL file read (4 GiB: a binary STL of 85 million triangles).
pub const MAX_BYTES: u64 = 1 << 32;

/// How many bad edges an error lists.
const SHOWN: usize = 3;

/// Where the file's model goes: `p = R·(scale·v) + offset` for a vertex `v` in file
/// units, `R = Rz(rz)·Ry(ry)·Rx(rx)`: rotated first by `rx` degrees about x, then by `ry`
/// about y, then by `rz` about z (fixed axes, right-handed, about the file's origin).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// File units to metres (> 0).
    pub scale: f64,
    /// Degrees about x, y, z, applied in that order.
    pub rotate: [f64; 3],
    /// Metres, added last.
    pub offset: [f64; 3],
}

impl Default for Placement {
    fn default() -> Self {
        Placement {
            scale: 1.0,
            rotate: [0.0; 3],
            offset: [0.0; 3],
        }
    }
}

/// cos and sin of `deg` degrees, exact at multiples of 90.
fn cos_sin(deg: f64) -> (f64, f64) {
    let r = deg.rem_euclid(360.0);
    if r % 90.0 == 0.0 {
        return match (r / 90.0) as u32 {
            0 => (1.0, 0.0),
            1 => (0.0, 1.0),
            2 => (-1.0, 0.0),
            _ => (0.0, -1.0),
        };
    }
    let t = r.to_radians();
    (t.cos(), t.sin())
}

impl Placement {
    /// The rotation matrix `Rz·Ry·Rx` (rows).
    pub fn matrix(&self) -> [[f64; 3]; 3] {
        let (cx, sx) = cos_sin(self.rotate[0]);
        let (cy, sy) = cos_sin(self.rotate[1]);
        let (cz, sz) = cos_sin(self.rotate[2]);
        let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
        let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
        let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
        mul(rz, mul(ry, rx))
    }

    /// Vertex `v` (file units) in metres.
    pub fn apply(&self, m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
        let s = v.map(|x| x * self.scale);
        [0, 1, 2].map(|i| m[i][0] * s[0] + m[i][1] * s[1] + m[i][2] * s[2] + self.offset[i])
    }
}

fn mul(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// Why an STL file was refused: a message and, where one helps, a hint.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshError {
    pub message: String,
    pub hint: Option<String>,
}

impl MeshError {
    fn new(message: impl Into<String>) -> MeshError {
        MeshError {
            message: message.into(),
            hint: None,
        }
    }
    fn hint(self, hint: impl Into<String>) -> MeshError {
        MeshError {
            hint: Some(hint.into()),
            ..self
        }
    }
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(h) = &self.hint {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

/// A closed triangle mesh, placed in the scene (metres).
pub struct Mesh {
    /// The file as the scene names it (`file = "..."`).
    pub file: String,
    /// The file as read (relative to the scene's directory).
    pub path: PathBuf,
    pub placement: Placement,
    /// Welded vertices (identical coordinates in the file are one vertex), in metres.
    vertices: Vec<[f64; 3]>,
    triangles: Vec<[u32; 3]>,
    /// Triangles dropped because two of their corners are the same vertex.
    pub repeated: usize,
    /// Triangles with three distinct but collinear corners (zero area): kept for the
    /// closedness check (they close T-junctions), never crossed.
    pub flat: usize,
    /// FNV-1a of the file's bytes and the placement: the mesh's identity.
    pub hash: u64,
    lo: [f64; 3],
    hi: [f64; 3],
    bins: [OnceLock<Bins>; 3],
}

impl fmt::Debug for Mesh {
    /// Short, and what identifies the solid (run fingerprints print the scene with `{:?}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mesh")
            .field("file", &self.file)
            .field("placement", &self.placement)
            .field("triangles", &self.triangles.len())
            .field("hash", &format_args!("{:016x}", self.hash))
            .finish()
    }
}

impl PartialEq for Mesh {
    fn eq(&self, other: &Mesh) -> bool {
        self.hash == other.hash
            && self.file == other.file
            && self.triangles.len() == other.triangles.len()
            && self.vertices.len() == other.vertices.len()
    }
}

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// A coordinate for messages (6 significant digits).
fn short(x: f64) -> String {
    let y: f64 = format!("{x:.5e}").parse().unwrap_or(x);
    format!("{y}")
}

fn point(p: [f64; 3]) -> String {
    format!("({}, {}, {})", short(p[0]), short(p[1]), short(p[2]))
}

impl Mesh {
    /// Read `path` (`file` as the scene wrote it) and place it.
    pub fn read(path: &Path, file: &str, placement: Placement) -> Result<Mesh, MeshError> {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                MeshError::new("no such file").hint("`file` is relative to the scene file's directory")
            }
            _ => MeshError::new(format!("cannot read it: {e}")),
        })?;
        if !meta.is_file() {
            return Err(MeshError::new("not a regular file"));
        }
        if meta.len() > MAX_BYTES {
            return Err(MeshError::new(format!(
                "{} bytes is more than the {} bytes an STL file may have here",
                meta.len(),
                MAX_BYTES
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| MeshError::new(format!("cannot read it: {e}")))?;
        let mut m = Mesh::from_bytes(&bytes, file, placement)?;
        m.path = path.to_path_buf();
        Ok(m)
    }

    /// Parse STL bytes (binary or ASCII) and place them.
    pub fn from_bytes(bytes: &[u8], file: &str, placement: Placement) -> Result<Mesh, MeshError> {
        if bytes.is_empty() {
            return Err(MeshError::new("the file is empty"));
        }
        let solid = bytes.starts_with(b"solid");
        let count = (bytes.len() >= 84).then(|| u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]));
        let binary = count.is_some_and(|n| 84 + 50 * n as u64 == bytes.len() as u64);
        // stl_io reads a file that starts with "solid " as ASCII: a binary file whose
        // header begins so (some exporters write that) is handed over with it blanked,
        // and an ASCII file that starts "solid" with no name gets the space it expects.
        let data: std::borrow::Cow<[u8]> = if binary {
            let mut b = bytes.to_vec();
            b[0] = 0;
            b.into()
        } else if solid && bytes.iter().take(4096).any(|&b| b == 0) {
            // Not text: a binary STL whose header starts with "solid", cut short or padded.
            let n = count.unwrap_or(0);
            return Err(MeshError::new(format!(
                "not a readable STL file: it starts with \"solid\" but is not text, and as binary STL it would hold \
                 {n} triangles in {} bytes, but it has {} bytes (cut short?)",
                84 + 50 * n as u64,
                bytes.len()
            )));
        } else if solid {
            if matches!(bytes.get(5), Some(b'\r' | b'\n') | None) {
                let mut b = b"solid ".to_vec();
                b.extend_from_slice(&bytes[5..]);
                b.into()
            } else {
                bytes.into()
            }
        } else {
            return Err(match count {
                None => MeshError::new(format!(
                    "not an STL file: {} bytes is too short for a binary STL (84 bytes of header and count) and it \
                     does not start with \"solid\" (ASCII STL)",
                    bytes.len()
                )),
                Some(n) => MeshError::new(format!(
                    "not an STL file: as binary STL it would hold {n} triangles in {} bytes, but it has {} bytes, \
                     and it does not start with \"solid\" (ASCII STL)",
                    84 + 50 * n as u64,
                    bytes.len()
                )),
            });
        };
        let kind = if binary { "binary STL" } else { "ASCII STL" };
        let mut cursor = std::io::Cursor::new(&data[..]);
        let reader = stl_io::create_stl_reader(&mut cursor)
            .map_err(|e| MeshError::new(format!("not a readable {kind}: {e}")))?;
        let mut raw: Vec<[f64; 3]> = Vec::new();
        let mut index: HashMap<[u32; 3], u32> = HashMap::new();
        let mut tris: Vec<[u32; 3]> = Vec::new();
        for (k, t) in reader.enumerate() {
            let t = t.map_err(|e| {
                let e = e.to_string();
                if e.contains("finite") {
                    MeshError::new(format!(
                        "triangle {} of the {kind}: a coordinate is not a finite number (NaN or infinity)",
                        k + 1
                    ))
                } else {
                    MeshError::new(format!("{kind}, triangle {}: {e}", k + 1))
                }
            })?;
            let mut ids = [0u32; 3];
            for (c, v) in t.vertices.iter().enumerate() {
                if let Some(bad) = v.0.iter().find(|x| !x.is_finite()) {
                    return Err(MeshError::new(format!(
                        "triangle {} of the {kind}: vertex {} has a coordinate {bad} (not a finite number)",
                        k + 1,
                        c + 1
                    )));
                }
                // -0 and 0 are one coordinate.
                let key = v.0.map(|x| (x + 0.0).to_bits());
                let next = raw.len() as u32;
                let id = *index.entry(key).or_insert(next);
                if id == next {
                    raw.push(v.0.map(f64::from));
                }
                ids[c] = id;
            }
            tris.push(ids);
        }
        if tris.is_empty() {
            return Err(MeshError::new(format!("the {kind} has no triangles")));
        }
        let mut h = fnv(FNV_START, bytes);
        for x in [placement.scale]
            .iter()
            .chain(&placement.rotate)
            .chain(&placement.offset)
        {
            h = fnv(h, &x.to_bits().to_le_bytes());
        }
        Mesh::build(file, raw, tris, placement, h)
    }

    /// A mesh from triangles given in metres (identical coordinates are one vertex):
    /// for tests, benchmarks and generated models.
    pub fn from_triangles(name: &str, triangles: &[[[f64; 3]; 3]]) -> Result<Mesh, MeshError> {
        let mut raw = Vec::new();
        let mut index: HashMap<[u64; 3], u32> = HashMap::new();
        let mut tris = Vec::with_capacity(triangles.len());
        let mut h = FNV_START;
        for t in triangles {
            let mut ids = [0u32; 3];
            for (c, v) in t.iter().enumerate() {
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(MeshError::new("a coordinate is not a finite number"));
                }
                let key = v.map(|x| (x + 0.0).to_bits());
                for k in key {
                    h = fnv(h, &k.to_le_bytes());
                }
                let next = raw.len() as u32;
                let id = *index.entry(key).or_insert(next);
                if id == next {
                    raw.push(*v);
                }
                ids[c] = id;
            }
            tris.push(ids);
        }
        if tris.is_empty() {
            return Err(MeshError::new("no triangles"));
        }
        Mesh::build(name, raw, tris, Placement::default(), h)
    }

    fn build(
        file: &str,
        raw: Vec<[f64; 3]>,
        tris: Vec<[u32; 3]>,
        placement: Placement,
        hash: u64,
    ) -> Result<Mesh, MeshError> {
        let total = tris.len();
        let mut repeated = 0;
        let mut flat = 0;
        let mut kept = Vec::with_capacity(total);
        for t in tris {
            if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
                repeated += 1;
                continue;
            }
            let [a, b, c] = t.map(|i| raw[i as usize]);
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            if n == [0.0; 3] {
                flat += 1;
            }
            kept.push(t);
        }
        if kept.is_empty() {
            return Err(MeshError::new(format!(
                "all {total} triangles are degenerate (two corners at the same point)"
            )));
        }
        // Closedness: every edge in exactly two triangles.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(3 * kept.len());
        for t in &kept {
            for (p, q) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                edges.push((p.min(q), p.max(q)));
            }
        }
        edges.sort_unstable();
        let (mut open, mut many) = (0usize, 0usize);
        let mut shown = Vec::new();
        let mut i = 0;
        while i < edges.len() {
            let mut j = i + 1;
            while j < edges.len() && edges[j] == edges[i] {
                j += 1;
            }
            let n = j - i;
            if n != 2 {
                if n == 1 || n % 2 == 1 {
                    open += 1;
                } else {
                    many += 1;
                }
                if shown.len() < SHOWN {
                    let (p, q) = (raw[edges[i].0 as usize], raw[edges[i].1 as usize]);
                    shown.push(format!(
                        "{} – {} ({n} triangle{})",
                        point(p),
                        point(q),
                        if n == 1 { "" } else { "s" }
                    ));
                }
            }
            i = j;
        }
        if open + many > 0 {
            let what = match (open, many) {
                (o, 0) => format!(
                    "{o} open edge{} (used by an odd number of triangles)",
                    if o == 1 { "" } else { "s" }
                ),
                (0, m) => format!(
                    "{m} non-manifold edge{} (used by 4 or more triangles)",
                    if m == 1 { "" } else { "s" }
                ),
                (o, m) => format!(
                    "{o} open edges (used by an odd number of triangles) and {m} non-manifold edges (4 or more)"
                ),
            };
            return Err(MeshError::new(format!(
                "the mesh is not a closed surface: {what}, every edge must be shared by exactly two triangles; \
                 first at {} in the file's units",
                shown.join(", ")
            ))
            .hint(
                "inside/outside is decided by counting surface crossings, which needs a watertight mesh: close the \
                 holes or separate the touching shells in the CAD tool (export as a solid), or repair the mesh",
            ));
        }
        let m = placement.matrix();
        let vertices: Vec<[f64; 3]> = raw.iter().map(|&v| placement.apply(&m, v)).collect();
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for t in &kept {
            for &i in t {
                let v = vertices[i as usize];
                for a in 0..3 {
                    lo[a] = lo[a].min(v[a]);
                    hi[a] = hi[a].max(v[a]);
                }
            }
        }
        if lo.iter().chain(&hi).any(|x| !x.is_finite()) {
            return Err(MeshError::new(
                "the placed model has coordinates that are not finite numbers (scale too large?)",
            ));
        }
        Ok(Mesh {
            file: file.to_string(),
            path: PathBuf::from(file),
            placement,
            vertices,
            triangles: kept,
            repeated,
            flat,
            hash,
            lo,
            hi,
            bins: Default::default(),
        })
    }

    /// Triangles (those kept: see [`Mesh::repeated`]).
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// One line for `fdtd check`: `models/horn.stl: 1204 triangles (602 vertices), placed
    /// in (0.01, 0.01, 0.01) … (0.05, 0.04, 0.03) m`, and the degenerate triangles.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}: {} triangles ({} vertices), placed in {} … {} m",
            self.file,
            self.triangles.len(),
            self.vertices.len(),
            point(self.lo),
            point(self.hi)
        );
        if self.repeated > 0 {
            s += &format!(", {} degenerate triangles dropped (a repeated corner)", self.repeated);
        }
        if self.flat > 0 {
            s += &format!(", {} zero-area triangles (collinear corners: never crossed)", self.flat);
        }
        s
    }

    /// Axis-aligned bounding box (m) of the placed model.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        (self.lo, self.hi)
    }

    /// Whether `p` (m) is inside (by the rules of the module doc).
    pub fn contains(&self, p: [f64; 3]) -> bool {
        let mut c = Vec::new();
        self.crossings(2, p[0], p[1], &mut c);
        c.iter().filter(|&&t| t <= p[2]).count() % 2 == 1
    }

    /// The coordinates along `axis` where the line along `axis` through `(u, v)` (the
    /// coordinates along `axis + 1` and `axis + 2`, mod 3) crosses the surface, sorted.
    pub fn crossings(&self, axis: usize, u: f64, v: f64, out: &mut Vec<f64>) {
        out.clear();
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        if !(u >= self.lo[b] && u <= self.hi[b] && v >= self.lo[c] && v <= self.hi[c]) {
            return;
        }
        let bins = self.bins(axis);
        let p = [u, v];
        for &t in bins.at(p) {
            let tri = self.triangles[t as usize].map(|i| self.vertices[i as usize]);
            let q = tri.map(|x| [x[b], x[c]]);
            if let Some(w) = covers(q, p) {
                let s = w[0] + w[1] + w[2];
                out.push((w[0] * tri[0][axis] + w[1] * tri[1][axis] + w[2] * tri[2][axis]) / s);
            }
        }
        out.sort_unstable_by(f64::total_cmp);
    }

    /// Inside flags of the points `ts` (ascending) on the line along `axis` at `(u, v)`
    /// (as [`Mesh::crossings`]): `out[k]` for `ts[k]`. `scratch` is reused between calls.
    pub fn line_inside(&self, axis: usize, u: f64, v: f64, ts: &[f64], out: &mut [bool], scratch: &mut Vec<f64>) {
        self.crossings(axis, u, v, scratch);
        let mut n = 0;
        for (k, &t) in ts.iter().enumerate() {
            while n < scratch.len() && scratch[n] <= t {
                n += 1;
            }
            out[k] = n % 2 == 1;
        }
    }

    /// The inside intervals `[enter, leave]` along the line (as [`Mesh::crossings`]).
    pub fn line_intervals(&self, axis: usize, u: f64, v: f64, scratch: &mut Vec<f64>) -> Vec<[f64; 2]> {
        self.crossings(axis, u, v, scratch);
        scratch.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
    }

    fn bins(&self, axis: usize) -> &Bins {
        self.bins[axis].get_or_init(|| Bins::new(self, axis))
    }
}

/// Triangles binned by their bounding boxes projected along one axis.
struct Bins {
    lo: [f64; 2],
    inv: [f64; 2],
    n: [usize; 2],
    /// CSR: bin `k` holds `items[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Bins {
    fn new(mesh: &Mesh, axis: usize) -> Bins {
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        let lo = [mesh.lo[b], mesh.lo[c]];
        let ext = [mesh.hi[b] - lo[0], mesh.hi[c] - lo[1]];
        // About one bin per triangle, square-ish in the projection's extent.
        let target = (mesh.triangles.len() as f64).clamp(1.0, 16e6);
        let n = if ext[0] > 0.0 && ext[1] > 0.0 {
            let nb = (target * ext[0] / ext[1]).sqrt().clamp(1.0, 16384.0);
            let nc = (target / nb).clamp(1.0, 16384.0);
            [nb.ceil() as usize, nc.ceil() as usize]
        } else {
            [1, 1]
        };
        // Triangles with a projection of zero area never cross a line along `axis`.
        let boxes: Vec<Option<[f64; 4]>> = mesh
            .triangles
            .iter()
            .map(|t| {
                let q = t.map(|i| {
                    let v = mesh.vertices[i as usize];
                    [v[b], v[c]]
                });
                if robust::orient2d(pt(q[0]), pt(q[1]), pt(q[2])) == 0.0 {
                    return None;
                }
                let (mut l, mut h) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
                for p in q {
                    for d in 0..2 {
                        l[d] = l[d].min(p[d]);
                        h[d] = h[d].max(p[d]);
                    }
                }
                Some([l[0], h[0], l[1], h[1]])
            })
            .collect();
        // Long thin triangles (a tessellated cylinder) span many bins: coarsen the bins
        // along the axis they span until the entries stay within 16 per triangle.
        let mut n = n;
        let budget = 16 * mesh.triangles.len() + 1024;
        let mut bins = loop {
            let inv = [0, 1].map(|d| if ext[d] > 0.0 { n[d] as f64 / ext[d] } else { 0.0 });
            let bins = Bins {
                lo,
                inv,
                n,
                start: vec![0; n[0] * n[1] + 1],
                items: Vec::new(),
            };
            let (mut total, mut span) = (0usize, [0usize; 2]);
            for r in boxes.iter().flatten() {
                let s = [
                    bins.cell(r[1], 0) - bins.cell(r[0], 0) + 1,
                    bins.cell(r[3], 1) - bins.cell(r[2], 1) + 1,
                ];
                total += s[0] * s[1];
                span[0] += s[0];
                span[1] += s[1];
            }
            if total <= budget || n == [1, 1] {
                break bins;
            }
            let d = if (span[0] > span[1] && n[0] > 1) || n[1] == 1 {
                0
            } else {
                1
            };
            n[d] = n[d].div_ceil(2);
        };
        let ranges: Vec<Option<[usize; 4]>> = boxes
            .iter()
            .map(|r| {
                r.map(|r| {
                    [
                        bins.cell(r[0], 0),
                        bins.cell(r[1], 0),
                        bins.cell(r[2], 1),
                        bins.cell(r[3], 1),
                    ]
                })
            })
            .collect();
        let n = bins.n;
        for r in ranges.iter().flatten() {
            for i in r[0]..=r[1] {
                for j in r[2]..=r[3] {
                    bins.start[i * n[1] + j + 1] += 1;
                }
            }
        }
        for k in 1..bins.start.len() {
            bins.start[k] += bins.start[k - 1];
        }
        let mut fill = bins.start.clone();
        bins.items = vec![0; *bins.start.last().unwrap_or(&0) as usize];
        for (t, r) in ranges.iter().enumerate() {
            let Some(r) = r else { continue };
            for i in r[0]..=r[1] {
                for j in r[2]..=r[3] {
                    let k = i * n[1] + j;
                    bins.items[fill[k] as usize] = t as u32;
                    fill[k] += 1;
                }
            }
        }
        bins
    }

    /// The bin index along `d` of coordinate `x` (monotone in `x`, clamped).
    fn cell(&self, x: f64, d: usize) -> usize {
        let f = ((x - self.lo[d]) * self.inv[d]).floor();
        if f.is_nan() || f < 0.0 {
            0
        } else {
            (f as usize).min(self.n[d] - 1)
        }
    }

    fn at(&self, p: [f64; 2]) -> &[u32] {
        let k = self.cell(p[0], 0) * self.n[1] + self.cell(p[1], 1);
        &self.items[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

fn pt(p: [f64; 2]) -> robust::Coord<f64> {
    robust::Coord { x: p[0], y: p[1] }
}

/// Exact orientation of `r` against the line `p → q`, evaluated in one canonical
/// direction of the edge so that `side(p, q, r) == -side(q, p, r)` exactly.
fn side(p: [f64; 2], q: [f64; 2], r: [f64; 2]) -> f64 {
    if (p[0], p[1]) < (q[0], q[1]) {
        robust::orient2d(pt(p), pt(q), pt(r))
    } else {
        -robust::orient2d(pt(q), pt(p), pt(r))
    }
}

/// Whether a point exactly on the directed edge `p → q` of a counter-clockwise triangle
/// belongs to it: of the two directions of an edge, exactly one does.
fn owns(p: [f64; 2], q: [f64; 2]) -> bool {
    q[1] < p[1] || (q[1] == p[1] && q[0] > p[0])
}

/// If the projected triangle `q` covers `p` (ties by [`owns`]): its barycentric weights
/// (unnormalised, of one sign).
fn covers(q: [[f64; 2]; 3], p: [f64; 2]) -> Option<[f64; 3]> {
    let lo = [0, 1].map(|d| q[0][d].min(q[1][d]).min(q[2][d]));
    let hi = [0, 1].map(|d| q[0][d].max(q[1][d]).max(q[2][d]));
    if p[0] < lo[0] || p[0] > hi[0] || p[1] < lo[1] || p[1] > hi[1] {
        return None;
    }
    let area = robust::orient2d(pt(q[0]), pt(q[1]), pt(q[2]));
    if area == 0.0 {
        return None;
    }
    // Weight of vertex i: the side of p against the opposite edge (i+1 → i+2).
    let w = [0, 1, 2].map(|i| side(q[(i + 1) % 3], q[(i + 2) % 3], p));
    let ccw = area > 0.0;
    for i in 0..3 {
        let (a, b) = (q[(i + 1) % 3], q[(i + 2) % 3]);
        let s = if ccw { w[i] } else { -w[i] };
        let ok = s > 0.0 || (s == 0.0 && if ccw { owns(a, b) } else { owns(b, a) });
        if !ok {
            return None;
        }
    }
    Some(w)
}

/// The 12 triangles of the box `lo..hi` (each face split along one diagonal), outward:
/// for tests and generated models.
pub fn cuboid(lo: [f64; 3], hi: [f64; 3]) -> Vec<[[f64; 3]; 3]> {
    let c = |i: usize| [0, 1, 2].map(|a| if i >> a & 1 == 1 { hi[a] } else { lo[a] });
    // Faces as corner indices (bit a set: high along a), outward order.
    let faces = [
        [0, 2, 6, 4],
        [1, 5, 7, 3],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 6, 7, 5],
    ];
    faces
        .iter()
        .flat_map(|f| [[c(f[0]), c(f[1]), c(f[2])], [c(f[0]), c(f[2]), c(f[3])]])
        .collect()
}

/// A closed sphere inscribed in the ball `center`, `radius`: `lat` bands of `lon`
/// quads (triangles at the poles), `2·lon·(lat − 1)` triangles, every vertex on the
/// sphere: for tests and benchmarks.
pub fn uv_sphere(center: [f64; 3], radius: f64, lat: usize, lon: usize) -> Vec<[[f64; 3]; 3]> {
    let v = |i: usize, j: usize| -> [f64; 3] {
        if i == 0 {
            return [center[0], center[1], center[2] + radius];
        }
        if i == lat {
            return [center[0], center[1], center[2] - radius];
        }
        let t = std::f64::consts::PI * i as f64 / lat as f64;
        let p = std::f64::consts::TAU * (j % lon) as f64 / lon as f64;
        [
            center[0] + radius * t.sin() * p.cos(),
            center[1] + radius * t.sin() * p.sin(),
            center[2] + radius * t.cos(),
        ]
    };
    let mut out = Vec::with_capacity(2 * lon * lat);
    for i in 0..lat {
        for j in 0..lon {
            let (a, b, c, d) = (v(i, j), v(i, j + 1), v(i + 1, j), v(i + 1, j + 1));
            if i > 0 {
                out.push([a, c, b]);
            }
            if i + 1 < lat {
                out.push([b, c, d]);
            }
        }
    }
    out
}

/// Binary STL bytes of `triangles` (for tests and generated models): normals from the
/// corners' order (right-handed), attribute 0.
pub fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut out = vec![0u8; 80];
    out.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
    for t in triangles {
        for x in normal(t) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for v in t {
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0, 0]);
    }
    out
}

/// ASCII STL text of `triangles` (every coordinate written so it reads back exactly).
pub fn ascii_stl(name: &str, triangles: &[[[f32; 3]; 3]]) -> String {
    let mut s = format!("solid {name}\n");
    for t in triangles {
        let n = normal(t);
        s += &format!("  facet normal {:e} {:e} {:e}\n    outer loop\n", n[0], n[1], n[2]);
        for v in t {
            s += &format!("      vertex {:e} {:e} {:e}\n", v[0], v[1], v[2]);
        }
        s += "    endloop\n  endfacet\n";
    }
    s += &format!("endsolid {name}\n");
    s
}

fn normal(t: &[[f32; 3]; 3]) -> [f32; 3] {
    let u = [0, 1, 2].map(|a| t[1][a] - t[0][a]);
    let v = [0, 1, 2].map(|a| t[2][a] - t[0][a]);
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if l > 0.0 {
        n.map(|x| x / l)
    } else {
        [0.0; 3]
    }
}

#[cfg(test)]
#[path = "mesh_tests.rs"]
mod tests;
