/**
 * How llmperf4j's files reach the disk: the one whole-or-absent rule ({@link io.llmperf4j.model.disk.WholeFiles}),
 * its error ({@link io.llmperf4j.model.disk.ResultsNotWrittenException}) and the seam a test puts a full disk under
 * ({@link io.llmperf4j.model.disk.ResultsDisk}); and a folder of the temporary folder only this user can write
 * ({@link io.llmperf4j.model.disk.PrivateUserFolder}). JDK only, below every module that writes a file.
 */
package io.llmperf4j.model.disk;
