//! wgpu compute backend (WGSL kernels in `shaders/`).
use super::{Backend, BackendError, BackendOptions};
use crate::model::Model;
use std::sync::Arc;

/// Create the GPU backend for `model`.
pub fn create(_model: Arc<Model>, _opts: &BackendOptions) -> Result<(Box<dyn Backend>, String), BackendError> {
    Err(BackendError::NoDevice(
        "the GPU backend is not available yet in this build; use --backend cpu".into(),
    ))
}
