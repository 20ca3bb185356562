"""Model inference: tree ensembles, the block-sequence network, the n-gram language model and the
flagship's learned pipeline that combines them."""
