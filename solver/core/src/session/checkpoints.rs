//! A run's checkpoint policy: the caller's choice over the scene's `[checkpoint]`
//! section over the default interval.
use crate::checkpoint::Interval;
use crate::runner;
use crate::scene::CheckpointSection;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the caller (a command line, a binding) asks of checkpoints, over the scene's
/// `[checkpoint]` section.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CheckpointRequest {
    /// The interval (else the scene's, else [`Interval::default_time`]).
    pub every: Option<Interval>,
    /// No checkpoints at all (a stopped run then cannot be resumed).
    pub off: bool,
}

/// The resolved checkpoint policy of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointPolicy {
    pub enabled: bool,
    pub interval: Interval,
    /// The checkpoint file (its previous generation goes to `PATH.prev`): the scene's
    /// `[checkpoint] path`, else `<output>.ckpt`.
    pub path: PathBuf,
}

impl CheckpointPolicy {
    /// The policy of a run writing `output`.
    pub fn resolve(section: &CheckpointSection, request: &CheckpointRequest, output: &Path) -> CheckpointPolicy {
        CheckpointPolicy {
            enabled: !request.off && section.enabled,
            interval: interval(section, request.every),
            path: section
                .path
                .clone()
                .unwrap_or_else(|| runner::default_checkpoint_path(output)),
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
            path: Some("ck/a.ckpt".into()),
            enabled: true,
        };
        let cli = Interval {
            steps: None,
            time: Some(Duration::from_secs(30)),
        };
        let asked = |every| CheckpointRequest { every, off: false };

        let p = CheckpointPolicy::resolve(&none, &asked(None), out);
        assert_eq!(p.interval, Interval::default_time());
        assert_eq!(p.path, Path::new("runs/a.h5.ckpt"));
        assert!(p.enabled);

        let p = CheckpointPolicy::resolve(&scene, &asked(None), out);
        assert_eq!(p.interval.steps, Some(500));
        assert_eq!(p.interval.time, None);
        assert_eq!(p.path, Path::new("ck/a.ckpt"));

        let p = CheckpointPolicy::resolve(&scene, &asked(Some(cli)), out);
        assert_eq!(p.interval, cli);

        // A time-only section.
        let timed = CheckpointSection {
            every_seconds: Some(90.0),
            ..CheckpointSection::default()
        };
        assert_eq!(interval(&timed, None).time, Some(Duration::from_secs(90)));

        // Off by the request or by the scene.
        let off = CheckpointRequest { every: None, off: true };
        assert!(!CheckpointPolicy::resolve(&scene, &off, out).enabled);
        let disabled = CheckpointSection {
            enabled: false,
            ..CheckpointSection::default()
        };
        assert!(!CheckpointPolicy::resolve(&disabled, &asked(Some(cli)), out).enabled);
    }
}
