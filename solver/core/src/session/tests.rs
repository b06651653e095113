//! The session's checks and stages, with an in-memory output and a backend that steps
//! nothing (the physics is tested elsewhere).
use super::*;
use crate::backend::{empty_outputs, PassOutputs};
use crate::plan::Plan;
use crate::runner::{Sink, SinkError};
use crate::Component;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

const SCENE: &str = "[domain]\ncell = 1e-3\ncells = [8, 8, 8]\n[time]\nsteps = 40\n[boundaries]\nall = \"pec\"\n\
                     [[probes]]\nname = \"rx\"\nposition = [0.004, 0.004, 0.004]\ncomponents = [\"Ez\"]\n";

fn scene(dir: &Path) -> PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(&p, SCENE).unwrap();
    p
}

/// A backend that keeps nothing: fields stay zero, and every due output sample reads 0.
struct Idle(Arc<Simulation>, std::ops::Range<usize>);

impl Backend for Idle {
    fn describe(&self) -> String {
        "idle (test)".into()
    }
    fn step(&mut self, n0: usize, count: usize, _: &[f32]) -> Result<(), BackendError> {
        self.1 = n0..n0 + count;
        Ok(())
    }
    fn drain_outputs(&mut self) -> Result<PassOutputs, BackendError> {
        let mut out = empty_outputs(&self.0);
        for (sp, streams) in self.0.schedule.passes.iter().zip(out.iter_mut()) {
            for (stream, values) in sp.outputs.iter().zip(streams.iter_mut()) {
                let due = self.1.clone().filter(|&n| crate::pass::due(stream.every, n)).count();
                *values = vec![0.0; due];
            }
        }
        self.1 = 0..0;
        Ok(out)
    }
    fn read_region(&mut self, _: Component, lo: [usize; 3], hi: [usize; 3]) -> Result<Vec<f32>, BackendError> {
        Ok(vec![0.0; (0..3).map(|a| hi[a] - lo[a]).product()])
    }
    fn read_field(&mut self, _: Component) -> Result<Vec<f32>, BackendError> {
        Ok(vec![0.0; self.0.grid.len()])
    }
}

/// An engine of `kind` building [`Idle`] backends; `fail` makes its plan fail.
struct Fake {
    kind: BackendChoice,
    fail: Option<&'static str>,
    software: bool,
}

impl Engine for Fake {
    fn kind(&self) -> BackendChoice {
        self.kind
    }
    fn plan(&self, model: &Simulation, _: &BackendOptions) -> Result<Target, BackendError> {
        if let Some(why) = self.fail {
            return Err(BackendError::NoDevice(why.into()));
        }
        Ok(Target {
            plan: Plan::common(model, 2),
            device: format!("{:?}", self.kind),
            software: self.software,
        })
    }
    fn create(&self, model: Arc<Simulation>, _: &BackendOptions) -> Result<Box<dyn Backend>, BackendError> {
        Ok(Box::new(Idle(model, 0..0)))
    }
}

const CPU: Fake = Fake {
    kind: BackendChoice::Cpu,
    fail: None,
    software: false,
};

/// What the in-memory output format saw.
#[derive(Default)]
struct Files {
    /// (path, status, steps done) of every output closed.
    closed: Vec<(PathBuf, String, usize)>,
    created: Vec<(PathBuf, String)>,
}

struct Memory(Arc<Mutex<Files>>);

struct MemoryOutput {
    path: PathBuf,
    steps: usize,
    files: Arc<Mutex<Files>>,
}

impl Sink for MemoryOutput {
    fn probe(&mut self, _: usize, _: usize, _: &[f64], _: &[f32]) -> Result<(), SinkError> {
        Ok(())
    }
    fn snapshot(&mut self, _: usize, _: Component, _: f64, _: &[f32]) -> Result<(), SinkError> {
        Ok(())
    }
    fn flush(&mut self, steps_done: usize) -> Result<(), SinkError> {
        self.steps = steps_done;
        Ok(())
    }
}

impl MemoryOutput {
    fn close(self, status: &str) -> Result<(), OutputFailure> {
        self.files
            .lock()
            .unwrap()
            .closed
            .push((self.path, status.into(), self.steps));
        Ok(())
    }
}

impl Output for MemoryOutput {
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }
    fn run_id(&self) -> u64 {
        7
    }
    fn contents(&self) -> Vec<String> {
        vec!["/probes: rx".into()]
    }
    fn companion(&self) -> Option<PathBuf> {
        None
    }
    fn finish(self: Box<Self>, outcome: Outcome) -> Result<(), OutputFailure> {
        let status = if outcome == Outcome::Finished {
            "complete"
        } else {
            "interrupted"
        };
        self.close(status)
    }
    fn fail(self: Box<Self>, _: &str) -> Result<(), OutputFailure> {
        self.close("failed")
    }
}

impl OutputFormat for Memory {
    fn extension(&self) -> &str {
        "mem"
    }
    fn inspect(&self, path: &Path) -> Result<OutputInfo, OutputFailure> {
        Err(OutputFailure::new(
            OutputErrorKind::BadInput,
            format!("{}: not an output file", path.display()),
        ))
    }
    fn create(
        &self,
        path: &Path,
        _: &Scene,
        _: &Simulation,
        backend: &str,
        _: bool,
    ) -> Result<Box<dyn Output>, OutputFailure> {
        self.0
            .lock()
            .unwrap()
            .created
            .push((path.to_path_buf(), backend.to_string()));
        Ok(Box::new(MemoryOutput {
            path: path.to_path_buf(),
            steps: 0,
            files: self.0.clone(),
        }))
    }
    fn resume(
        &self,
        path: &Path,
        _: &Scene,
        _: &Simulation,
        _: &str,
        _: usize,
    ) -> Result<Box<dyn Output>, OutputFailure> {
        Err(OutputFailure::new(
            OutputErrorKind::BadInput,
            format!("{}: cannot resume", path.display()),
        ))
    }
}

fn request(dir: &Path) -> RunRequest {
    let mut r = RunRequest::new(scene(dir));
    r.output = Some(dir.join("out.mem"));
    r.backend = BackendChoice::Cpu;
    r
}

#[test]
fn resume_refusals_come_in_order() {
    let out = Path::new("o.h5");
    let info = |status: &str, fingerprint, run_id| {
        Some(Ok(OutputInfo {
            status: status.into(),
            steps_done: 30,
            steps: 40,
            run_id,
            fingerprint,
        }))
    };
    let refuse = |info, on| check_resumable(out, info, 5, on).unwrap_err();
    assert!(matches!(refuse(None, true), ResumeRefusal::Missing { .. }));
    let bad = OutputFailure::new(OutputErrorKind::BadInput, "o.h5: unreadable");
    assert_eq!(refuse(Some(Err(bad.clone())), true), ResumeRefusal::Unreadable(bad));
    // Complete before another scene, another scene before checkpoints off.
    assert!(matches!(
        refuse(info("complete", Some(6), None), false),
        ResumeRefusal::Complete { steps_done: 30, .. }
    ));
    assert!(matches!(
        refuse(info("failed", Some(6), Some(1)), false),
        ResumeRefusal::OtherRun { .. }
    ));
    assert!(matches!(
        refuse(info("failed", None, Some(1)), true),
        ResumeRefusal::OtherRun { .. }
    ));
    assert_eq!(
        refuse(info("interrupted", Some(5), None), false),
        ResumeRefusal::CheckpointsOff
    );
    assert!(matches!(
        refuse(info("interrupted", Some(5), None), true),
        ResumeRefusal::NoRunId { .. }
    ));
    assert_eq!(
        check_resumable(out, info("interrupted", Some(5), Some(9)), 5, true),
        Ok(9)
    );
    // No front end's options in the messages.
    for r in [
        refuse(None, true),
        refuse(info("failed", Some(6), Some(1)), true),
        ResumeRefusal::CheckpointsOff,
    ] {
        assert!(!r.to_string().contains("--"), "{r}");
    }
}

#[test]
fn output_prechecks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.h5");
    assert!(precheck_output(&out, false).is_ok());
    assert!(!out.exists(), "the precheck leaves nothing behind");
    std::fs::write(&out, b"keep").unwrap();
    let e = precheck_output(&out, false).unwrap_err();
    assert!(matches!(e, SessionError::OutputExists { .. }));
    assert_eq!(e.kind(), ErrorKind::BadInput);
    assert!(!e.to_string().contains("--force"), "{e}");
    assert!(precheck_output(&out, true).is_ok());
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    let e = precheck_output(&dir.path().join("no/o.h5"), false).unwrap_err();
    assert!(matches!(e, SessionError::OutputDirMissing { .. }), "{e}");
    assert_eq!(default_output(Path::new("a/b/dip.toml"), "h5"), Path::new("dip.h5"));
}

#[test]
fn auto_passes_over_an_unusable_or_software_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = load(&SceneSource::Path(scene(dir.path())), true).unwrap();
    let model = Simulation::standard(model);
    let opts = BackendOptions::default();
    let plan = |gpu: &Fake| plan_backend(&[&CPU, gpu], &model, BackendChoice::Auto, &opts, 64, true).unwrap();
    let usable = Fake {
        kind: BackendChoice::Gpu,
        fail: None,
        software: false,
    };
    let p = plan(&usable);
    assert_eq!((p.kind, p.auto), (BackendChoice::Gpu, Some(Auto::Gpu)));
    let software = Fake {
        software: true,
        ..usable
    };
    let p = plan(&software);
    assert_eq!(p.kind, BackendChoice::Cpu);
    assert!(matches!(p.auto, Some(Auto::Cpu(backend::NoGpu::Software { .. }))));
    assert!(p.ram.is_some() && p.target.plan.total() > Plan::common(&model, 2).total());
    let none = Fake {
        fail: Some("no adapter"),
        ..usable
    };
    let p = plan(&none);
    assert_eq!(
        p.auto,
        Some(Auto::Cpu(backend::NoGpu::Unusable("no usable GPU: no adapter".into())))
    );
    // Asked for, an unusable GPU is an error.
    let e = plan_backend(&[&CPU, &none], &model, BackendChoice::Gpu, &opts, 64, true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    // Creating follows the same rule.
    let model = Arc::new(model);
    let c = create_backend(&[&CPU, &software], &model, BackendChoice::Auto, &opts, 64, true)
        .unwrap()
        .0;
    assert_eq!(c.kind, BackendChoice::Cpu);
    assert!(c
        .describe()
        .starts_with("idle (test) (auto: the preferred GPU adapter, Gpu, is software"));
    let c = create_backend(&[&CPU, &usable], &model, BackendChoice::Auto, &opts, 64, true)
        .unwrap()
        .0;
    assert_eq!(c.kind, BackendChoice::Gpu);
    let c = create_backend(&[&CPU], &model, BackendChoice::Auto, &opts, 64, true)
        .unwrap()
        .0;
    assert_eq!(c.auto, Some(Auto::Cpu(backend::NoGpu::NotBuilt)));
}

#[test]
fn a_session_runs_to_a_complete_output_and_removes_stale_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let files = Arc::new(Mutex::new(Files::default()));
    // A checkpoint of an earlier run of this output (its header: magic, run id at 24).
    let stale = dir.path().join("out.mem.ckpt");
    let mut old = crate::checkpoint::MAGIC.to_vec();
    old.extend_from_slice(&[0u8; 16]);
    old.extend_from_slice(&99u64.to_le_bytes());
    std::fs::write(&stale, &old).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut req = request(dir.path());
    let s = seen.clone();
    req.events = Some(Arc::new(move |e: &SessionEvent| s.lock().unwrap().push(e.clone())));
    let steps = Arc::new(Mutex::new(Vec::new()));
    let st = steps.clone();
    req.progress = Some(Box::new(move |p: &runner::ProgressInfo| {
        st.lock().unwrap().push((p.step, p.total))
    }));
    req.chunk = 16;
    req.checkpoint.every = Some(crate::checkpoint::Interval {
        steps: Some(16),
        time: None,
    });
    let session = Session::load(req).unwrap();
    assert_eq!(session.model().grid.steps, 40);
    let prepared = session.prepare(&[&CPU], &Memory(files.clone())).unwrap();
    assert_eq!(prepared.start(), 0);
    assert_eq!(prepared.backend_kind(), BackendChoice::Cpu);
    assert!(prepared.checkpoints().enabled);
    assert!(
        !stale.exists(),
        "the stale checkpoint is removed when the output is created"
    );
    let report = prepared.run().unwrap();
    assert_eq!(report.summary.outcome, Outcome::Finished);
    assert_eq!((report.summary.steps_done, report.steps), (40, 40));
    assert_eq!(report.kind(), None);
    assert_eq!(report.contents, vec!["/probes: rx".to_string()]);
    let f = files.lock().unwrap();
    assert_eq!(f.created, vec![(dir.path().join("out.mem"), "idle (test)".to_string())]);
    assert_eq!(f.closed, vec![(dir.path().join("out.mem"), "complete".to_string(), 40)]);
    let seen = seen.lock().unwrap();
    assert!(matches!(
        seen[0],
        SessionEvent::StaleCheckpointsRemoved { count: 1, .. }
    ));
    assert_eq!(seen[0].severity(), Severity::Note);
    // The idle backend cannot save a state: the run says so once and goes on.
    assert!(seen
        .iter()
        .any(|e| matches!(e, SessionEvent::Run(RunEvent::CheckpointsUnsupported { .. }))));
    assert_eq!(steps.lock().unwrap().last(), Some(&(40, 40)));
}

#[test]
fn checks_refuse_before_anything_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let files = Arc::new(Mutex::new(Files::default()));
    let prepare = |req: RunRequest| Session::load(req).unwrap().prepare(&[&CPU], &Memory(files.clone()));

    // An existing output.
    std::fs::write(dir.path().join("out.mem"), b"x").unwrap();
    let e = prepare(request(dir.path())).err().unwrap();
    assert!(matches!(e, SessionError::OutputExists { .. }), "{e}");
    std::fs::remove_file(dir.path().join("out.mem")).unwrap();

    // Nothing to resume.
    let mut req = request(dir.path());
    req.resume = true;
    let e = prepare(req).err().unwrap();
    assert!(
        matches!(e, SessionError::NotResumable(ResumeRefusal::Missing { .. })),
        "{e}"
    );

    // A scene cannot name a checkpoint path.
    let p = dir.path().join("c.toml");
    std::fs::write(&p, format!("{SCENE}[checkpoint]\npath = \"victim.txt\"\n")).unwrap();
    let mut req = request(dir.path());
    req.scene = SceneSource::Path(p.clone());
    let e = Session::load(req).err().unwrap();
    assert!(e.to_string().contains("a scene cannot say where checkpoints go"), "{e}");
    assert_eq!(e.kind(), ErrorKind::BadInput);

    // A checkpoint directory that does not exist.
    let mut req = request(dir.path());
    req.checkpoint.dir = Some(dir.path().join("no"));
    let e = prepare(req).err().unwrap();
    assert!(matches!(e, SessionError::CheckpointDirMissing { .. }), "{e}");
    assert_eq!(e.kind(), ErrorKind::BadInput);
    // ... unless checkpoints are off.
    let mut req = request(dir.path());
    req.checkpoint.dir = Some(dir.path().join("no"));
    req.checkpoint.off = true;
    assert!(prepare(req).is_ok());

    // A file at a checkpoint name that is not a checkpoint: refused, left alone.
    let victim = dir.path().join("out.mem.ckpt.prev");
    std::fs::write(&victim, b"my notes").unwrap();
    let e = prepare(request(dir.path())).err().unwrap();
    assert!(matches!(e, SessionError::CheckpointFilesInTheWay { .. }), "{e}");
    assert!(e.to_string().contains("out.mem.ckpt.prev is in the way"), "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"my notes");
    std::fs::remove_file(&victim).unwrap();

    // A scene that cannot be read.
    let mut req = request(dir.path());
    req.scene = SceneSource::Path(dir.path().join("missing.toml"));
    let e = Session::load(req).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::BadInput);
    assert_eq!(files.lock().unwrap().created.len(), 1);
}

#[test]
fn a_stopped_run_is_interrupted_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let files = Arc::new(Mutex::new(Files::default()));
    let mut req = request(dir.path());
    let stop = Arc::new(AtomicBool::new(false));
    req.stop = Some(stop.clone());
    req.chunk = 8;
    // Stop after the first chunk.
    req.progress = Some(Box::new(move |_: &runner::ProgressInfo| {
        stop.store(true, Ordering::SeqCst)
    }));
    let report = Session::load(req)
        .unwrap()
        .prepare(&[&CPU], &Memory(files.clone()))
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.summary.outcome, Outcome::Interrupted);
    assert_eq!(report.summary.steps_done, 8);
    assert_eq!(report.kind(), Some(ErrorKind::Interrupted));
    // The idle backend wrote no checkpoint.
    assert!(matches!(report.advice, Some(ResumeAdvice::NoCheckpointYet { .. })));
    assert_eq!(files.lock().unwrap().closed[0].1, "interrupted");
}

#[test]
fn a_failed_run_closes_its_output_as_failed() {
    let dir = tempfile::tempdir().unwrap();
    let files = Arc::new(Mutex::new(Files::default()));
    let mut req = request(dir.path());
    req.checkpoint.off = true;
    req.fault = Some(Fault {
        at_step: 20,
        state_lost: true,
        panic: false,
    });
    req.chunk = 8;
    let e = Session::load(req)
        .unwrap()
        .prepare(&[&CPU], &Memory(files.clone()))
        .unwrap()
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    let SessionError::Run(f) = &e else { panic!("{e}") };
    assert_eq!(f.advice, Some(ResumeAdvice::CheckpointsOff));
    assert!(!f.on_gpu && f.closed.is_ok());
    let msg = e.to_string();
    assert!(
        msg.starts_with("the run failed at step 16 of 40: GPU device lost"),
        "{msg}"
    );
    assert!(msg.contains("is closed with status \"failed\""), "{msg}");
    assert_eq!(files.lock().unwrap().closed[0].1, "failed");
}

#[test]
fn a_software_gpu_asked_for_is_used_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = load(&SceneSource::Path(scene(dir.path())), true).unwrap();
    let model = Arc::new(Simulation::standard(model));
    let opts = BackendOptions::default();
    let software = Fake {
        kind: BackendChoice::Gpu,
        fail: None,
        software: true,
    };
    // Asked for, it runs there (the test suite's explicit GPU runs use lavapipe) and says
    // the CPU backend is faster.
    let c = create_backend(&[&CPU, &software], &model, BackendChoice::Gpu, &opts, 64, true)
        .unwrap()
        .0;
    assert_eq!(c.kind, BackendChoice::Gpu);
    let device = c.software.expect("a software device is flagged");
    assert!(software_warning(&device).contains("slower than the CPU backend"));
    // A hardware GPU is not flagged; auto never takes the software one.
    let hardware = Fake {
        software: false,
        ..software
    };
    let c = create_backend(&[&CPU, &hardware], &model, BackendChoice::Gpu, &opts, 64, true)
        .unwrap()
        .0;
    assert_eq!(c.software, None);
    let c = create_backend(&[&CPU, &software], &model, BackendChoice::Auto, &opts, 64, true)
        .unwrap()
        .0;
    assert_eq!((c.kind, c.software), (BackendChoice::Cpu, None));
}

/// A pass a run request adds: no state, nothing to do (it only has to be scheduled).
#[derive(Debug)]
struct Extra(Vec<crate::pass::Entry>);

impl crate::pass::Pass for Extra {
    fn name(&self) -> &str {
        "extra"
    }
    fn describe(&self) -> String {
        format!("{} entries", self.0.len())
    }
    fn hook(&self) -> crate::pass::Hook {
        self.0[0].hook
    }
    fn entries(&self) -> Vec<crate::pass::Entry> {
        self.0.clone()
    }
    fn state(&self) -> Vec<crate::state::ArraySpec> {
        vec![crate::state::ArraySpec::new("s", [2, 1, 1])]
    }
    fn host(&self, _: &mut crate::pass::HostCtx<'_>) {}
    fn device(&self) -> crate::pass::DevicePass {
        unreachable!("not run on a GPU here")
    }
}

#[test]
fn a_run_request_adds_passes_without_touching_the_model() {
    use crate::pass::{Entry, Hook, Scope};
    use crate::schedule::Stage;
    let dir = tempfile::tempdir().unwrap();
    let plain = Session::load(RunRequest::new(scene(dir.path()))).unwrap();
    let mut req = RunRequest::new(scene(dir.path()));
    req.extra_passes.push(Arc::new(|_: &Model| {
        Arc::new(Extra(vec![
            Entry::main(Hook::AfterH),
            Entry::new(Hook::BeforeE, "b", Scope::Once),
        ])) as Arc<dyn Pass>
    }));
    let with = Session::load(req).unwrap();
    let (a, b) = (&plain.model().schedule, &with.model().schedule);
    assert_eq!(b.passes.len(), a.passes.len() + 1);
    assert_eq!(b.passes.last().unwrap().pass.name(), "extra");
    // Its state joins the table (so checkpoints carry it) and its entries the stages.
    assert_eq!(b.state.len(), a.state.len() + 1);
    assert_eq!(b.state.last().unwrap().name, "extra/s");
    assert!(b.stages.contains(&Stage::Hook(Hook::BeforeE)) && !a.stages.contains(&Stage::Hook(Hook::BeforeE)));
    // The same scene with another pass is another run: a checkpoint of one does not
    // continue the other.
    let s = plain.scene();
    assert_ne!(
        runner::fingerprint(s, plain.model()),
        runner::fingerprint(s, with.model())
    );
    let h = crate::checkpoint::Header::new(with.model(), 0, 0, 0);
    assert_eq!(h.arrays.last().unwrap().0, "extra/s");
}
