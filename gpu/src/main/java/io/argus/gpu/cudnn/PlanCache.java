package io.argus.gpu.cudnn;

import io.argus.gpu.CudaLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Chosen engine configurations on disk, one small text file per (device identity, problem), so a restart rebuilds
 * its plans without timing a single candidate. The file name is a hash of both; the file repeats both in full, and
 * an entry whose text does not match what is asked (another GPU, driver or cuDNN, a hash collision, a truncated or
 * edited file) is ignored with a log line: the plan is then searched again and the entry rewritten. Writes go
 * through a temporary file and an atomic move, so a reader never sees half an entry.
 */
public final class PlanCache {
    // version 2 adds the workspace line: version 1 entries (knob choices never read, so rebuilt with cuDNN's default
    // knobs: 10x slower training on the H100) are ignored and searched again
    static final String MAGIC = "argus-plan 2";

    /** A stored choice: the configuration and the workspace its plan needed when it was chosen. */
    public record Entry(EngineConfig config, long workspaceBytes) {}

    private final Path directory;
    private final String identity;

    public PlanCache(Path directory, DeviceIdentity identity) {
        this.directory = directory;
        this.identity = identity.text();
    }

    /** {@link io.argus.gpu.CacheHome}'s plans (~/.cache/argus/plans), beside the kernel cache ({@code KernelCompiler}). */
    public static Path defaultDirectory() {
        return io.argus.gpu.CacheHome.current().resolve("plans");
    }

    public Path directory() { return directory; }

    Path file(String key) {
        return directory.resolve(hash(identity + "\n" + key) + ".plan");
    }

    /** The configuration stored for this problem key, or null (absent, unreadable, foreign or corrupt). */
    public Entry load(String key) {
        Path f = file(key);
        if (!Files.isRegularFile(f)) return null;
        try {
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            if (lines.size() < 5 || !lines.get(0).equals(MAGIC)) {
                CudaLog.info("plan cache: ignoring " + f + ": not a plan entry");
                return null;
            }
            if (!lines.get(1).equals("identity " + identity) || !lines.get(2).equals("key " + key)) {
                CudaLog.info("plan cache: ignoring " + f + ": made for another device, library or shape");
                return null;
            }
            if (!lines.get(3).startsWith("engine ")) {
                CudaLog.info("plan cache: ignoring " + f + ": no engine line");
                return null;
            }
            if (!lines.get(4).startsWith("workspace ")) {
                CudaLog.info("plan cache: ignoring " + f + ": no workspace line");
                return null;
            }
            long workspace = Long.parseLong(lines.get(4).substring("workspace ".length()).strip());
            if (workspace < 0) throw new IllegalArgumentException("negative workspace " + workspace);
            return new Entry(EngineConfig.parse(lines.get(3).substring("engine ".length())), workspace);
        } catch (IOException | RuntimeException e) {
            CudaLog.info("plan cache: ignoring " + f + ": " + e.getMessage());
            return null;
        }
    }

    public boolean contains(String key) {
        return Files.isRegularFile(file(key));
    }

    /** Stores the choice; a cache that cannot be written is logged once per call and otherwise ignored. */
    public void store(String key, Entry entry, String note) {
        Path f = file(key);
        String text = MAGIC + "\nidentity " + identity + "\nkey " + key + "\nengine " + entry.config().text()
                + "\nworkspace " + entry.workspaceBytes() + "\n# " + note + "\n";
        try {
            Files.createDirectories(directory);
            Path tmp = Files.createTempFile(directory, "plan", ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UnsupportedOperationException e) {
            CudaLog.info("plan cache: cannot write " + f + ": " + e.getMessage());
        }
    }

    static String hash(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
