package dev.zklock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyConfig;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.MergedBeanDefinitionPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.util.ClassUtils;

/**
 * Looks at the proxy Spring actually made for every bean with {@code @DistributedLock}
 * (or {@code @DistributedSemaphore}) methods, after the auto-proxy creator, rather than
 * predicting it: a bean left without the lock advisor (created before the advisor
 * existed, or excluded from auto-proxying), a final method under a class-based proxy, or
 * a method on none of the proxied interfaces under an interface-based one would run
 * without its lock, and fails the bean's creation instead. Once every singleton exists,
 * checks that locked methods have a registry to lock with.
 *
 * <p>
 * A bean that calls one of its own locked methods through {@code this} bypasses its
 * proxy, and the method runs without its lock: such calls, found in the class files of
 * the bean's class ({@link SelfInvocationChecker}), fail the bean's creation. The check
 * runs once per class, when the bean has just been instantiated, before its
 * initialization callbacks (a {@code @PostConstruct} method could make such a call), and
 * again (from the cache) after initialization for beans that skipped that step.
 *
 * <p>
 * Across beans, checks that one key expression is locked with one recipe: the exclusive
 * lock, the read/write lock and a semaphore (of a given number of permits) are different
 * ZooKeeper recipes on the same path that do not exclude each other, so two methods
 * locking the same expression text two ways would run together. Expressions are compared
 * as written: this catches the usual slip (one key, two annotations), not two texts that
 * give the same key.
 *
 * <p>
 * <p>
 * {@code @LeaderOnly} beans get the same checks (proxying, self-calls), and are then
 * handed to {@link LeaderOnlyBeans}, which tells the application's leadership about their
 * groups and leader-only components once every singleton exists, before the context
 * starts.
 *
 * <p>
 * Not ordered: Spring runs unordered post-processors after ordered ones, the auto-proxy
 * creator among them.
 */
final class LockedBeanVerifier
		implements MergedBeanDefinitionPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

	private @Nullable BeanFactory beanFactory;

	private @Nullable DistributedLockAdvisor advisor;

	private @Nullable LeaderOnlyAdvisor leaderAdvisor;

	private boolean lockedBeansSeen;

	private final LeaderOnlyBeans leaderOnlyBeans = new LeaderOnlyBeans();

	private final SelfInvocationChecker selfInvocations = new SelfInvocationChecker();

	/** The classes whose proxying was checked. */
	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet();

	/** The first operation seen for each key expression, as written. */
	private final Map<String, LockOperation> recipes = new ConcurrentHashMap<>();

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = beanFactory;
	}

	/**
	 * Check the bean's class for calls to its own locked methods through {@code this}
	 * before the bean is initialized. Not for the infrastructure the advisor is made
	 * from: looking the advisor up from there would be circular.
	 */
	@Override
	public void postProcessMergedBeanDefinition(RootBeanDefinition beanDefinition, Class<?> beanType, String beanName) {
		if (beanDefinition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE || Advisor.class.isAssignableFrom(beanType)
				|| BeanPostProcessor.class.isAssignableFrom(beanType)) {
			return;
		}
		DistributedLockAdvisor lockAdvisor = advisorUnlessInCreation();
		LeaderOnlyAdvisor leaderOnlyAdvisor = leaderAdvisorUnlessInCreation();
		Class<?> targetClass = ClassUtils.getUserClass(beanType);
		List<LockOperation> operations = (lockAdvisor != null) ? lockedOperations(lockAdvisor, targetClass) : List.of();
		List<LeaderOperation> leaderOperations = (leaderOnlyAdvisor != null)
				? leaderOperations(leaderOnlyAdvisor, targetClass) : List.of();
		if (!operations.isEmpty() || !leaderOperations.isEmpty()) {
			this.selfInvocations.check(targetClass, beanName, both(operations, leaderOperations));
		}
	}

	private static List<ProxiedMethod> both(List<LockOperation> locked, List<LeaderOperation> leaderOnly) {
		List<ProxiedMethod> both = new ArrayList<>(locked);
		both.addAll(leaderOnly);
		return both;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof Advisor || bean instanceof BeanPostProcessor) {
			return bean;
		}
		DistributedLockAdvisor lockAdvisor = advisor();
		LeaderOnlyAdvisor leaderOnlyAdvisor = leaderAdvisor();
		Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		List<LockOperation> operations = (lockAdvisor != null) ? lockedOperations(lockAdvisor, targetClass) : List.of();
		List<LeaderOperation> leaderOperations = (leaderOnlyAdvisor != null)
				? leaderOperations(leaderOnlyAdvisor, targetClass) : List.of();
		if (operations.isEmpty() && leaderOperations.isEmpty()) {
			return bean;
		}
		if (!operations.isEmpty()) {
			this.lockedBeansSeen = true;
		}
		for (LockOperation operation : operations) {
			checkOneRecipe(operation);
		}
		this.selfInvocations.check(targetClass, beanName, both(operations, leaderOperations));
		if (!(bean instanceof Advised advised)) {
			if (!operations.isEmpty()) {
				LockOperation first = operations.get(0);
				throw new InvalidLockDeclarationException(first.annotation(), first.describeMethod(), null, "the bean '"
						+ beanName + "' was not proxied (it was created before the @DistributedLock "
						+ "advisor, for example for a BeanPostProcessor, or it is excluded from auto-proxying): "
						+ "its locked methods would run without their lock",
						"Do not make this bean a dependency of a BeanPostProcessor, or lock in code with ZkLockTemplate");
			}
			LeaderOperation first = leaderOperations.get(0);
			throw new InvalidLockDeclarationException(first.annotation(), first.describeMethod(), null,
					"the bean '" + beanName + "' was not proxied (it was created before the @LeaderOnly advisor, "
							+ "for example for a BeanPostProcessor, or it is excluded from auto-proxying): "
							+ first.unguarded(),
					"Do not make this bean a dependency of a BeanPostProcessor, or check leadership in code with "
							+ "ZkLeadership");
		}
		List<Advisor> advisors = List.of(advised.getAdvisors());
		// Otherwise a proxy of someone else's making that delegates to the bean (a scoped
		// proxy)
		if (advisors.contains(lockAdvisor)) {
			for (LockOperation operation : operations) {
				verify(operation, advised, bean);
			}
		}
		if (!leaderOperations.isEmpty() && advisors.contains(leaderOnlyAdvisor)) {
			for (LeaderOperation operation : leaderOperations) {
				verify(operation, advised, bean);
			}
			this.leaderOnlyBeans.found(beanName, bean, leaderOperations);
		}
		return bean;
	}

	/**
	 * The locked operations of a class, each declaration parsed and checked once by the
	 * operation source; then, once per class, what depends on how the class is proxied.
	 */
	private List<LockOperation> lockedOperations(DistributedLockAdvisor lockAdvisor, Class<?> targetClass) {
		return checkedClass(targetClass, lockAdvisor.operationSource().lockedOperations(targetClass));
	}

	/**
	 * The leader-only operations of a class, each declaration parsed and checked once by
	 * its operation source; then, once per class, what depends on how it is proxied.
	 */
	private List<LeaderOperation> leaderOperations(LeaderOnlyAdvisor leaderOnlyAdvisor, Class<?> targetClass) {
		return checkedClass(targetClass, leaderOnlyAdvisor.operationSource().leaderOperations(targetClass));
	}

	private <O extends ProxiedMethod> List<O> checkedClass(Class<?> targetClass, List<O> operations) {
		if (!operations.isEmpty() && this.checkedClasses.add(targetClass)) {
			try {
				checkFinalClass(targetClass, operations.get(0));
			}
			catch (InvalidLockDeclarationException ex) {
				this.checkedClasses.remove(targetClass);
				throw ex;
			}
		}
		return operations;
	}

	/**
	 * A final class cannot get a class-based proxy, and when the auto-proxy creator is
	 * set to class-based proxies Spring would fail to create one with a message that
	 * names no method: say which method cannot be locked first. Checked before the bean
	 * is proxied; everything else that depends on the proxy is checked on the proxy
	 * Spring actually makes.
	 */
	private void checkFinalClass(Class<?> targetClass, ProxiedMethod operation) {
		if (Modifier.isFinal(targetClass.getModifiers()) && !targetClass.isInterface()
				&& !Proxy.isProxyClass(targetClass) && autoProxyCreatorProxiesClasses()) {
			throw new InvalidLockDeclarationException(operation.annotation(), operation.describeMethod(), null,
					"its class is final, and class-based proxies are subclasses: " + operation.unguarded(),
					"Make the class non-final, or declare the method on an interface and set "
							+ "spring.aop.proxy-target-class=false (or @EnableDistributedLocks(proxyTargetClass = false))");
		}
	}

	private boolean autoProxyCreatorProxiesClasses() {
		return this.beanFactory != null && this.beanFactory.containsBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
				&& this.beanFactory.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME) instanceof ProxyConfig config
				&& config.isProxyTargetClass();
	}

	/**
	 * One key expression, one recipe: the first method seen with an expression sets it.
	 */
	private void checkOneRecipe(LockOperation operation) {
		LockOperation first = this.recipes.putIfAbsent(operation.keyExpression(), operation);
		if (first == null || first.method().equals(operation.method())
				|| first.declaration().recipe().equals(operation.declaration().recipe())) {
			return;
		}
		throw new InvalidLockDeclarationException(operation.annotation(), operation.describeMethod(),
				operation.keyExpression(),
				"it is locked with " + operation.declaration().recipe() + " (" + operation.declaration().describe()
						+ "), and " + first.describeMethod() + " locks the same key expression with "
						+ first.declaration().recipe() + " (" + first.declaration().describe() + "): these are "
						+ "different ZooKeeper recipes on the same path, which do not exclude each other, so both "
						+ "methods could run at once on one key",
				"Lock the key one way in every method (all exclusive, all READ/WRITE, or all one semaphore with the "
						+ "same permits), or give the two keys distinct prefixes if they name different things");
	}

	private static void verify(ProxiedMethod operation, Advised advised, Object proxy) {
		Method method = operation.method();
		if (AopUtils.isJdkDynamicProxy(proxy)) {
			// A method leader-only through its type's annotation, and on no interface,
			// cannot be called through the bean at all
			if (!(operation instanceof LeaderOperation leaderOnly && leaderOnly.onType())
					&& !isOnAnInterface(method, advised.getProxiedInterfaces(), operation.targetClass())) {
				throw new InvalidLockDeclarationException(operation.annotation(), operation.describeMethod(), null,
						"the bean has an interface-based proxy, and the method is on none of its interfaces: callers "
								+ "cannot reach it through the proxy, so " + operation.unguarded(),
						"Declare the method on one of the bean's interfaces, or use class-based proxies "
								+ "(spring.aop.proxy-target-class=true, or @EnableDistributedLocks(proxyTargetClass = true))");
			}
		}
		else if (Modifier.isFinal(method.getModifiers()) && !method.getDeclaringClass().isInterface()) {
			throw new InvalidLockDeclarationException(operation.annotation(), operation.describeMethod(), null,
					"the method is final, and class-based proxies cannot override it: " + operation.unguarded(),
					"Remove 'final' from the method");
		}
	}

	/**
	 * Whether one of the interfaces declares the method, generics and bridges included.
	 */
	private static boolean isOnAnInterface(Method method, Class<?>[] interfaces, Class<?> targetClass) {
		for (Class<?> candidate : interfaces) {
			for (Method declared : candidate.getMethods()) {
				if (declared.getName().equals(method.getName())
						&& declared.getParameterCount() == method.getParameterCount() && (declared.equals(method)
								|| AopUtils.getMostSpecificMethod(declared, targetClass).equals(method))) {
					return true;
				}
			}
		}
		return false;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.selfInvocations.startupDone();
		this.leaderOnlyBeans.startupDone(this.beanFactory);
		if (!this.lockedBeansSeen || !(this.beanFactory instanceof ListableBeanFactory listable)) {
			return;
		}
		if (listable.getBeanNamesForType(ZkLockRegistry.class, true, false).length == 0
				&& listable.getBeanNamesForType(ZkLockTemplate.class, true, false).length == 0) {
			throw new IllegalStateException("@DistributedLock methods need a ZkLockRegistry bean to lock with, and "
					+ "the application defines none: define one (new ZkLockRegistry(curatorFramework)), or use the "
					+ "Spring Boot starter, which does");
		}
	}

	private @Nullable DistributedLockAdvisor advisorUnlessInCreation() {
		if (this.advisor == null && this.beanFactory instanceof ConfigurableListableBeanFactory factory) {
			String[] names = factory.getBeanNamesForType(DistributedLockAdvisor.class, true, false);
			if (names.length == 1 && !factory.isCurrentlyInCreation(names[0])) {
				this.advisor = factory.getBean(names[0], DistributedLockAdvisor.class);
			}
		}
		return this.advisor;
	}

	private @Nullable LeaderOnlyAdvisor leaderAdvisorUnlessInCreation() {
		if (this.leaderAdvisor == null && this.beanFactory instanceof ConfigurableListableBeanFactory factory) {
			String[] names = factory.getBeanNamesForType(LeaderOnlyAdvisor.class, true, false);
			if (names.length == 1 && !factory.isCurrentlyInCreation(names[0])) {
				this.leaderAdvisor = factory.getBean(names[0], LeaderOnlyAdvisor.class);
			}
		}
		return this.leaderAdvisor;
	}

	private @Nullable LeaderOnlyAdvisor leaderAdvisor() {
		if (this.leaderAdvisor == null && this.beanFactory instanceof ListableBeanFactory listable) {
			String[] names = listable.getBeanNamesForType(LeaderOnlyAdvisor.class, true, false);
			if (names.length == 1) {
				this.leaderAdvisor = listable.getBean(names[0], LeaderOnlyAdvisor.class);
			}
		}
		return this.leaderAdvisor;
	}

	private @Nullable DistributedLockAdvisor advisor() {
		if (this.advisor == null && this.beanFactory instanceof ListableBeanFactory listable) {
			String[] names = listable.getBeanNamesForType(DistributedLockAdvisor.class, true, false);
			if (names.length == 1) {
				this.advisor = listable.getBean(names[0], DistributedLockAdvisor.class);
			}
		}
		return this.advisor;
	}

}
