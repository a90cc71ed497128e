package org.springframework.boot.testcontainers.service.connection;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;

import org.springframework.boot.origin.Origin;
import org.springframework.core.annotation.MergedAnnotation;

/**
 * Creates the {@link ContainerConnectionSource} Spring Boot would make for a
 * {@code @ServiceConnection} container of a given image, without Docker: Boot reads the
 * image name from a running Docker environment, and the constructor is package-private,
 * hence this class in Boot's package (test code only).
 *
 * @author zk-lock
 */
public final class TestContainerConnectionSources {

	private TestContainerConnectionSources() {
	}

	/**
	 * Return a source for a {@link GenericContainer} of the given image.
	 * @param imageName the image name, as given to the container
	 * @param connectionName the {@code name} of the {@code @ServiceConnection}, or
	 * {@code null} for none
	 * @return the source; its container supplier fails, as no container is started
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static ContainerConnectionSource<Container<?>> of(String imageName, @Nullable String connectionName) {
		MergedAnnotation<ServiceConnection> annotation = MergedAnnotation.of(ServiceConnection.class,
				(connectionName != null) ? Map.of("name", connectionName) : Map.of());
		Class<Container<?>> containerType = (Class) GenericContainer.class;
		Origin origin = new Origin() {

			@Override
			public String toString() {
				return "test image " + imageName;
			}

		};
		return new ContainerConnectionSource<>("test", origin, containerType, imageName, annotation, () -> {
			throw new IllegalStateException("No container: the name matching needs none");
		}, null, null);
	}

}
