package io.ankusa.claimcheck.internal.telemetry;

/** The sink that drops every event; stateless and thread-safe. */
enum NoopTelemetry implements ClaimCheckTelemetry {
  INSTANCE;

  @Override
  public void read(int store, ReadOutcome outcome) {}

  @Override
  public void limitChanged(int store, int newLimit) {}

  @Override
  public void storeState(int store, int limit, int inflight, int queued) {}

  @Override
  public void breakerOpened(int store) {}

  @Override
  public void breakerClosed(int store) {}

  @Override
  public void checkIn(CheckInOutcome outcome, int store, long nanos) {}
}
