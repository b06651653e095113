//! A run's checkpoint policy: the caller's choice over the scene's `[checkpoint]`
//! section over the default interval.
use crate::checkpoint::{Interval, Owner};
use crate::runner;
use crate::scene::CheckpointSection;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the caller (a command line, a binding) asks of checkpoints, over the scene's
/// `[checkpoint]` section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckpointRequest {
    /// The interval (else the scene's, else [`Interval::default_time`]).
    pub every: Option<Interval>,
    /// No checkpoints at all (a stopped run then cannot be resumed).
    pub off: bool,
    /// The directory for the checkpoint files (else the output's); their names are
    /// always derived from the output file's name.
    pub dir: Option<PathBuf>,
}

/// The resolved checkpoint policy of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointPolicy {
    pub enabled: bool,
    pub interval: Interval,
    /// The checkpoint file (its previous generation goes to `PATH.prev`, the one being
    /// written to `PATH.tmp`): `<output>.ckpt` beside the output, or `<output file
    /// name>.ckpt` in the requested directory. A scene cannot choose it.
    pub path: PathBuf,
    /// Whether the files are beside the output (so only runs of this output write
    /// checkpoints under these names), rather than in a directory other outputs may share.
    pub beside_output: bool,
}

impl CheckpointPolicy {
    /// The policy of a run writing `output`.
    pub fn resolve(section: &CheckpointSection, request: &CheckpointRequest, output: &Path) -> CheckpointPolicy {
        let beside = runner::default_checkpoint_path(output);
        let (path, beside_output) = match &request.dir {
            Some(dir) => {
                let name = beside
                    .file_name()
                    .map(|n| n.to_os_string())
                    .unwrap_or_else(|| "out.ckpt".into());
                let path = dir.join(name);
                let same = path == beside;
                (path, same)
            }
            None => (beside, true),
        };
        CheckpointPolicy {
            enabled: !request.off && section.enabled,
            interval: interval(section, request.every),
            path,
            beside_output,
        }
    }

    /// Whose checkpoint files a new run of this output may remove as stale, given the run
    /// id of the output file it replaces (if it had one): beside the output, any run's
    /// (only runs of this output name them so); in a shared directory, only that run's.
    pub fn stale_owner(&self, replaced_run: Option<u64>) -> Option<Owner> {
        match (self.beside_output, replaced_run) {
            (true, _) => Some(Owner::AnyRun),
            (false, Some(id)) => Some(Owner::Run(id)),
            (false, None) => None,
        }
    }
}

/// The checkpoint interval: `every` over the section's over the default.
pub fn interval(section: &CheckpointSection, every: Option<Interval>) -> Interval {
    every.unwrap_or_else(|| {
        if section.every_steps.is_some() || section.every_seconds.is_some() {
            Interval {
                steps: section.every_steps,
                time: section.every_seconds.map(Duration::from_secs_f64),
            }
        } else {
            Interval::default_time()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_wins_over_the_scene_over_the_default() {
        let out = Path::new("runs/a.h5");
        let none = CheckpointSection::default();
        let scene = CheckpointSection {
            every_steps: Some(500),
            every_seconds: None,
            enabled: true,
        };
        let cli = Interval {
            steps: None,
            time: Some(Duration::from_secs(30)),
        };
        let asked = |every| CheckpointRequest {
            every,
            ..CheckpointRequest::default()
        };

        let p = CheckpointPolicy::resolve(&none, &asked(None), out);
        assert_eq!(p.interval, Interval::default_time());
        assert_eq!(p.path, Path::new("runs/a.h5.ckpt"));
        assert!(p.enabled);

        let p = CheckpointPolicy::resolve(&scene, &asked(None), out);
        assert_eq!(p.interval.steps, Some(500));
        assert_eq!(p.interval.time, None);
        assert_eq!(p.path, Path::new("runs/a.h5.ckpt"));
        assert!(p.beside_output);
        assert_eq!(p.stale_owner(None), Some(Owner::AnyRun));

        // A checkpoint directory: the name still comes from the output; only the run
        // the output held may lose its stale checkpoints there.
        let in_dir = CheckpointRequest {
            dir: Some("/scratch/ck".into()),
            ..CheckpointRequest::default()
        };
        let p = CheckpointPolicy::resolve(&none, &in_dir, out);
        assert_eq!(p.path, Path::new("/scratch/ck/a.h5.ckpt"));
        assert!(!p.beside_output);
        assert_eq!(p.stale_owner(Some(9)), Some(Owner::Run(9)));
        assert_eq!(p.stale_owner(None), None);

        let p = CheckpointPolicy::resolve(&scene, &asked(Some(cli)), out);
        assert_eq!(p.interval, cli);

        // A time-only section.
        let timed = CheckpointSection {
            every_seconds: Some(90.0),
            ..CheckpointSection::default()
        };
        assert_eq!(interval(&timed, None).time, Some(Duration::from_secs(90)));

        // Off by the request or by the scene.
        let off = CheckpointRequest {
            off: true,
            ..CheckpointRequest::default()
        };
        assert!(!CheckpointPolicy::resolve(&scene, &off, out).enabled);
        let disabled = CheckpointSection {
            enabled: false,
            ..CheckpointSection::default()
        };
        assert!(!CheckpointPolicy::resolve(&disabled, &asked(Some(cli)), out).enabled);
    }
}
