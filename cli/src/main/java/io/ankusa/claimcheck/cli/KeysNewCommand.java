package io.ankusa.claimcheck.cli;

import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code keys new --out FILE}: writes a fresh {@code local:} key file (a Tink JSON keyset of one
 * AES-256-GCM key, the format {@code claimcheck.encryption.kek=local:FILE} reads), created readable
 * and writable by its owner only (0600) and never over an existing file.
 */
@Command(
    name = "new",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description =
        "Write a fresh local: key file (for development and tests; production keys stay in a"
            + " KMS), readable only by its owner. Use it as claimcheck.encryption.kek=local:FILE.")
final class KeysNewCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--out", required = true, paramLabel = "FILE", description = "The new file.")
  Path out;

  @Option(names = "--json", description = "Print JSON.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    String keyset;
    try {
      AeadConfig.register();
      keyset =
          TinkJsonProtoKeysetFormat.serializeKeyset(
              KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM),
              InsecureSecretKeyAccess.get());
    } catch (GeneralSecurityException e) {
      throw new CliException(ExitCodes.ERROR, "cannot generate an AES-256-GCM key: " + e);
    }
    Path file = out.toAbsolutePath();
    try {
      if (Files.getFileStore(file.getParent()).supportsFileAttributeView("posix")) {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.createFile(file);
        file.toFile().setReadable(false, false);
        file.toFile().setWritable(false, false);
        file.toFile().setReadable(true, true);
        file.toFile().setWritable(true, true);
      }
    } catch (FileAlreadyExistsException e) {
      throw new CliException(ExitCodes.USAGE, file + " exists: a key file is never overwritten");
    }
    try (Writer w =
        Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.WRITE)) {
      w.write(keyset);
    }
    String kek = "local:" + file;
    if (json) {
      spec.commandLine().getOut().println(Json.write(Map.of("file", file.toString(), "kek", kek)));
    } else {
      spec.commandLine()
          .getOut()
          .println("wrote " + file + " (owner only): claimcheck.encryption.kek=" + kek);
    }
    return ExitCodes.OK;
  }
}
