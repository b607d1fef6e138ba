/**
 * A run's scrapes, in time order, each stamped in nanoseconds from the run's start (the same origin as the
 * client's records), with every series interned once so an hour of 1 s scrapes of a few hundred series stays a
 * few tens of megabytes. A failed scrape is a gap with its reason, never an exception.
 */
package io.llmperf4j.servermetrics.timeline;
