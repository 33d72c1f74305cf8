"""The simulation on disk, above the engine: a run's limits and counts, batches over local
workers or Dask (runner), Parquet parts and run.json (dataset), the run folder's lock, progress."""
