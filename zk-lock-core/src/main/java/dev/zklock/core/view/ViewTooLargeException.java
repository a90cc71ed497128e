package dev.zklock.core.view;

/**
 * Thrown, before anything is listed, when a root path has more children than the view
 * lists ({@link ViewOptions#maxKeys()}): ZooKeeper cannot list a part of a node's
 * children, and the whole list could exceed what one reply may carry.
 *
 * @author zk-lock
 */
public class ViewTooLargeException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the message, naming the path, its number of children and the bound
	 */
	public ViewTooLargeException(String message) {
		super(message);
	}

}
