package io.argus.pipeline.training;

import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.config.Names;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one directory ({@code training.importDir}) whose files an operator may adopt as weights by naming them in
 * {@code POST /api/models/:id/versions {"file": "<name>"}}: a request names a file in it, never a path. The name is a
 * name ({@link Names#fileIn}); a symbolic link in the directory may point to another file in it, not out of it; what
 * it finally names must be a regular file (checked again by {@link WeightsIntake} as it copies it). Without the key
 * adoption by name is off, and the refusal says how to turn it on.
 */
final class ImportDir {
    private ImportDir() {}

    /** The file {@code name} names in {@code dir} (null: the feature is off), links resolved. Blocking. */
    static Path resolve(Path dir, String name) {
        if (dir == null) {
            throw new RequestRefused(403, "file: adopting weights by file name is off: set training.importDir to the "
                    + "directory that holds the files an operator may adopt, or send the weights themselves as the "
                    + "body (content-type: application/octet-stream)");
        }
        Path file = Names.fileIn(dir, "file", name, "", Names.DERIVED_MAX);
        Path realDir;
        try {
            realDir = dir.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException("training.importDir " + dir + " cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        if (!Files.exists(file)) {
            throw RequestRefused.notFound("file: no file " + Names.quoted(name) + " in training.importDir " + dir);
        }
        Path real;
        try {
            real = file.toRealPath();
        } catch (IOException e) {
            throw RequestRefused.notFound("file: no file " + Names.quoted(name) + " in training.importDir " + dir);
        }
        if (!real.startsWith(realDir) || real.equals(realDir)) {
            throw new IllegalArgumentException("file: " + Names.quoted(name) + " is a link that leads out of training.importDir "
                    + dir + ": only files in it may be adopted");
        }
        return real;
    }
}
