package io.argus.pipeline.training;

import io.vertx.core.Future;
import java.nio.file.Path;

/**
 * The versions of the trained model and the only way to swap them ({@link ModelRegistryVerticle}): what the REST
 * routes show and change, where the trainer records its candidates, and how another node's promotion is adopted. One
 * change at a time: a change while another is under way is refused (409). Every call runs on the registry's context
 * and answers on the caller's; a refusal fails the future with a {@link io.argus.pipeline.base.RequestRefused} carrying
 * its HTTP status (a malformed version id is an {@link IllegalArgumentException}: 400).
 */
public interface ModelRegistryService {
    /** The model whose versions these are: the one that learns online. */
    String model();

    /** Every version kept, newest first, with the one serving and the rollback's target. */
    Future<VersionHistory> versions();

    /** The version serving now. */
    Future<ModelRegistry.Version> active();

    /**
     * Records a fine-tune's candidate ({@code weights}) with its held-out mAP before and after; an accepted one is
     * swapped in and becomes the active version.
     */
    Future<VersionChange> addCandidate(Path weights, int run, double mapBefore, double mapAfter, boolean accepted);

    /**
     * Stages a file for weights sent as a request body, refused while {@value ModelRegistryVerticle#MAX_UPLOADS} are
     * under way (429) or when weights of this network exceed {@code training.maxWeightsBytes} (413).
     */
    Future<UploadTicket> upload();

    /** An upload that arrived whole ({@code sha256}, {@code bytes}): checked, then adopted and swapped in. */
    Future<VersionChange> adoptUpload(String ticket, String sha256, long bytes);

    /** An upload that failed or was refused: its staged file goes. False for no such upload. */
    Future<Boolean> discard(String ticket);

    /** A file an operator named in {@code training.importDir}: copied in, checked, adopted and swapped in. */
    Future<VersionChange> importFile(String name);

    /**
     * Weights fetched into a local file ({@code file}) of a version another node promoted: checked against
     * {@code version} (null: named after their content), adopted and swapped in; {@code origin} is
     * {@code node <id>} or {@code operator}. In-process only.
     */
    Future<VersionChange> adopt(Path file, String version, String origin);

    /** The weights file of a version kept here (for another node); 404 for any other. */
    Future<Path> weights(String version);

    /** Swaps the previous version back in; 409 when there is none. */
    Future<VersionChange> rollback();

    /** The refusal for a model other than {@link #model()}: it has no version history. */
    static String noHistory(String asked, String trained) {
        return "model " + io.argus.pipeline.config.Names.quoted(asked) + " has no version history: online training is for \""
                + trained + "\"";
    }
}
