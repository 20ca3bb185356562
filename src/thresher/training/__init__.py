"""Training: label alignment, feature matrices, model fitting (fitting needs the ``train`` extra)."""
