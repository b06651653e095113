//! A total-field/scattered-field plane wave (`model::tfsf`): a multi-entry pass over one
//! state, the incident line's E and H (`e`, `h`: `[component][l]`, 3 × `len` each).
//!
//! | entry | hook | scope | what |
//! |---|---|---|---|
//! | `tfsf_h` | AfterH | records | H samples next to the faces: `H += coef·E_inc^n` |
//! | `line_h` | BeforeE | once | the line's H: `H_inc^{n−½} → H_inc^{n+½}` (reads `E_inc^n`) |
//! | `tfsf_e` | AfterE | records | E samples next to the faces: `E += coef·H_inc^{n+½}` |
//! | `line_e` | AfterE | once | the line's E: `E_inc^n → E_inc^{n+1}`; the block set to `ê·w` |
//!
//! So each correction reads the line at the time level the 3-D update it corrects used.
//! Records are one per corrected sample (its terms in `params`), so no two threads write
//! one sample. The once entries are one workgroup of 256 threads on the GPU, each taking
//! every 256th line sample (no sample of a half step reads another of the same field). Both backends do the same f32 operations in the same order
//! (`shaders/passes/tfsf.wgsl`).
use crate::model::tfsf::STENCIL;
use crate::model::{Model, PlaneWaveModel};
use crate::pass::{DevicePass, Entry, Hook, HostCtx, Pass, Record, Scope};
use crate::state::ArraySpec;

/// Where the pass-wide parameters end and the tail's `[a, f]` pairs begin in `params`.
const HEADER: usize = 20;

/// One plane wave's pass.
#[derive(Clone, Debug)]
pub struct PlaneWavePass {
    name: String,
    w: PlaneWaveModel,
    /// 1/Δ per axis (the 3-D kernels' f32 factors) and ê in f32.
    inv_d: [f32; 3],
    e32: [f32; 3],
}

impl PlaneWavePass {
    pub fn new(model: &Model, i: usize) -> PlaneWavePass {
        let w = model.plane_waves[i].clone();
        PlaneWavePass {
            name: format!("plane_wave:{}", w.name),
            inv_d: model.grid.inv_d(),
            e32: w.e.map(|x| x as f32),
            w,
        }
    }

    /// The plane wave as the grid runs it.
    pub fn model(&self) -> &PlaneWaveModel {
        &self.w
    }

    fn n(&self) -> usize {
        self.w.len
    }

    /// One step of the line's H (`electric` false) or E, from the other; `values` are
    /// the model's source values of the step ([`Model::source_values`]).
    pub fn line_step(&self, e: &mut [f32], h: &mut [f32], electric: bool, values: &[f32]) {
        let w = &self.w;
        let n = self.n() as i64;
        let m = w.m.map(|x| x as i64);
        let inv = self.inv_d;
        let (dst, src) = if electric { (e, &*h) } else { (h, &*e) };
        let at = |c: usize, l: i64| {
            if l < 0 || l >= n {
                0.0
            } else {
                src[c * n as usize + l as usize]
            }
        };
        for c in 0..3 {
            let [(ac, aa), (bc, ba)] = STENCIL[c + if electric { 0 } else { 3 }];
            let (ac, bc) = (ac % 3, bc % 3);
            for l in 0..n {
                if electric && (l as usize) < w.block {
                    dst[c * n as usize + l as usize] = self.e32[c] * values[w.drive + l as usize];
                    continue;
                }
                let curl = (at(ac, l + m[aa]) - at(ac, l - m[aa])) * inv[aa]
                    - (at(bc, l + m[ba]) - at(bc, l - m[ba])) * inv[ba];
                let x = &mut dst[c * n as usize + l as usize];
                let lu = l as usize;
                if lu >= w.tail {
                    let [a, f] = w.loss[lu - w.tail];
                    if electric {
                        *x = a * *x + (w.ce[1] * f) * curl;
                    } else {
                        *x = a * *x - (w.dh * f) * curl;
                    }
                } else if electric {
                    *x = w.ce[0] * *x + w.ce[1] * curl;
                } else {
                    *x -= w.dh * curl;
                }
            }
        }
    }
}

impl Pass for PlaneWavePass {
    fn name(&self) -> &str {
        &self.name
    }

    fn describe(&self) -> String {
        let w = &self.w;
        format!(
            "plane wave (TF/SF): k along m = {:?} (θ {:.3}°, φ {:.3}°, {:.3}° from the requested direction), \
             E = [{:.4}, {:.4}, {:.4}], box nodes {:?}, {} corrected samples, incident line of {} samples",
            w.m,
            w.theta,
            w.phi,
            w.error_deg,
            w.e[0],
            w.e[1],
            w.e[2],
            w.nodes,
            w.targets.len(),
            w.len
        )
    }

    fn hook(&self) -> Hook {
        Hook::AfterH
    }

    fn entries(&self) -> Vec<Entry> {
        vec![
            Entry::new(Hook::AfterH, "tfsf_h", Scope::Records),
            Entry::new(Hook::BeforeE, "line_h", Scope::Once),
            Entry::new(Hook::AfterE, "tfsf_e", Scope::Records),
            Entry::new(Hook::AfterE, "line_e", Scope::Once),
        ]
    }

    fn state(&self) -> Vec<ArraySpec> {
        let n = self.n();
        vec![ArraySpec::new("e", [3, n, 1]), ArraySpec::new("h", [3, n, 1])]
    }

    fn host(&self, ctx: &mut HostCtx<'_>) {
        match ctx.entry.entry {
            "tfsf_h" | "tfsf_e" => {
                let electric = ctx.entry.entry == "tfsf_e";
                let n = self.n();
                let (e, h) = (&*ctx.state[0], &*ctx.state[1]);
                for t in self.w.targets.iter().filter(|t| (t.comp < 3) == electric) {
                    let mut acc = *ctx.fields.at(t.comp, t.flat);
                    for term in &self.w.terms[t.first..t.first + t.count] {
                        let v = if term.comp < 3 {
                            e[term.comp * n + term.l]
                        } else {
                            h[(term.comp - 3) * n + term.l]
                        };
                        acc += term.coef * v;
                    }
                    *ctx.fields.at(t.comp, t.flat) = acc;
                }
            }
            "line_h" | "line_e" => {
                let [e, h] = ctx.state else {
                    unreachable!("the plane-wave pass has two state arrays")
                };
                self.line_step(e, h, ctx.entry.entry == "line_e", ctx.sources);
            }
            other => unreachable!("no entry {other:?}"),
        }
    }

    fn device(&self) -> DevicePass {
        let w = &self.w;
        let f = |x: f32| x.to_bits();
        let mut params = vec![0u32; HEADER];
        params[0] = w.len as u32;
        params[1] = w.block as u32;
        params[2] = w.tail as u32;
        params[3] = w.drive as u32;
        for a in 0..3 {
            params[4 + a] = w.m[a] as u32;
            params[10 + a] = f(self.inv_d[a]);
            params[13 + a] = f(self.e32[a]);
        }
        params[7] = f(w.ce[0]);
        params[8] = f(w.ce[1]);
        params[9] = f(w.dh);
        let terms_at = HEADER + 2 * w.loss.len();
        params[16] = terms_at as u32;
        for [a, b] in &w.loss {
            params.extend([f(*a), f(*b)]);
        }
        for t in &w.terms {
            params.extend([t.comp as u32 | (t.l as u32) << 3, f(t.coef)]);
        }
        DevicePass {
            file: "passes/tfsf.wgsl",
            wgsl: include_str!("../../../../shaders/passes/tfsf.wgsl"),
            entry: "tfsf_h",
            serial: false,
            records: w
                .targets
                .iter()
                .map(|t| Record {
                    at: t.at,
                    words: [t.comp as u32, 0, t.first as u32, t.count as u32],
                })
                .collect(),
            regions: Vec::new(),
            params,
            only_when_due: false,
        }
    }
}
