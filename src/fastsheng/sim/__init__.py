"""The simulation on disk, above the engine: a run's identity (spec), limits and counts, one
batch (batch, summary), local workers (local) or Dask (dask_backend), what stops a run (faults),
the orchestration (runner), Parquet parts and run.json (dataset), the folder's lock, progress."""
