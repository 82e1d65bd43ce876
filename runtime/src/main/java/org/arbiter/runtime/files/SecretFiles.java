package org.arbiter.runtime.files;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files that hold a secret (a password, a broker's own credentials, a properties file that quotes
 * one): created with their final owner-only mode, so that no other user can open them between
 * creation and a later {@code chmod}.
 */
public final class SecretFiles {

    private static final Set<PosixFilePermission> OWNER_RW = PosixFilePermissions.fromString("rw-------");

    private SecretFiles() {
    }

    /**
     * Writes {@code text} to a new file that only its owner may read or write (POSIX 0600, set
     * when the file is created); an old file there is replaced. Where the file system has no POSIX
     * permissions, the file is made owner-only as far as {@link File#setReadable(boolean, boolean)}
     * goes.
     */
    public static void writeOwnerOnly(Path file, String text) throws IOException {
        writeOwnerOnly(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #writeOwnerOnly(Path, String)} for bytes. */
    public static void writeOwnerOnly(Path file, byte[] bytes) throws IOException {
        Files.deleteIfExists(file);
        Path parent = file.toAbsolutePath().getParent();
        boolean posix = parent.getFileSystem().supportedFileAttributeViews().contains("posix");
        Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try (SeekableByteChannel ch = posix
                ? Files.newByteChannel(file, options, PosixFilePermissions.asFileAttribute(OWNER_RW))
                : Files.newByteChannel(file, options)) {
            if (posix) {
                Files.setPosixFilePermissions(file, OWNER_RW);  // whatever the umask did
            } else {
                File f = file.toFile();
                f.setReadable(false, false);
                f.setReadable(true, true);
                f.setWritable(false, false);
                f.setWritable(true, true);
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
        }
    }
}
